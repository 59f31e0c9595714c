-- A transcription backend that is down (refused, unreachable, connection broken, no answer in
-- time), shared by the fleet: while a row exists, workers claim no chunk jobs for that backend;
-- once probe_at passes, one worker takes the probe (one chunk job) and moves probe_at on; an
-- answer from the backend deletes the row. The waiting jobs keep their attempts.
CREATE TABLE backend_outages (
    backend        text PRIMARY KEY,
    reason         text NOT NULL,
    since          timestamptz NOT NULL DEFAULT now(),
    probe_at       timestamptz NOT NULL,
    probe_seconds  double precision NOT NULL CHECK (probe_seconds > 0),
    failures       integer NOT NULL DEFAULT 1,
    -- A worker took the probe since the last failure: the next failure doubles the wait.
    probing        boolean NOT NULL DEFAULT false,
    updated_at     timestamptz NOT NULL DEFAULT now()
);

GRANT SELECT, INSERT, UPDATE, DELETE ON backend_outages TO steno_worker;
GRANT SELECT, DELETE ON backend_outages TO steno_admin;
