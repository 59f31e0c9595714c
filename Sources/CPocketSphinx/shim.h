#ifndef STENO_CPOCKETSPHINX_SHIM_H
#define STENO_CPOCKETSPHINX_SHIM_H
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>

/* sphinxbase logs to stderr by default; Steno logs through swift-log instead. */
static inline void steno_sphinx_silence_logging(void) {
    err_set_logfp(NULL);
}

#endif
