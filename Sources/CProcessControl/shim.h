// Linux process control that the Glibc Swift module cannot call: prctl is variadic.
#include <sys/prctl.h>
#include <signal.h>

// Asks the kernel to send `signal` to this process when its parent thread ends.
static inline int steno_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0);
}
