#ifndef STENO_CPOCKETSPHINX_SHIM_H
#define STENO_CPOCKETSPHINX_SHIM_H
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/logmath.h>

/* sphinxbase logs to stderr by default; Steno logs through swift-log instead. */
static inline void steno_sphinx_silence_logging(void) {
    err_set_logfp(NULL);
}

/* Sets a grammar's first and last state (fields of the grammar's struct). */
static inline void steno_fsg_set_ends(fsg_model_t *fsg, int32 start, int32 final) {
    fsg->start_state = start;
    fsg->final_state = final;
}

#endif
