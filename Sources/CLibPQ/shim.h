#ifndef STENO_CLIBPQ_SHIM_H
#define STENO_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#include <poll.h>

/* Swift does not import character-literal macros such as PG_DIAG_SQLSTATE. */
static const int steno_pg_diag_sqlstate = PG_DIAG_SQLSTATE;
static const int steno_pg_diag_message_primary = PG_DIAG_MESSAGE_PRIMARY;
static const int steno_pg_diag_message_detail = PG_DIAG_MESSAGE_DETAIL;
static const int steno_pg_diag_message_hint = PG_DIAG_MESSAGE_HINT;
static const int steno_pg_diag_severity = PG_DIAG_SEVERITY_NONLOCALIZED;

#endif
