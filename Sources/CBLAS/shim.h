// OpenBLAS's CBLAS interface (Debian's libopenblas-dev), and openblas_set_num_threads.
#include <cblas.h>
