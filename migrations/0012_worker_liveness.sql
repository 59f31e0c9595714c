-- A dead worker noticed at once, a slow one never robbed, a poison job found.
--
-- Each worker's listening session holds a session-level advisory lock of its own, the two-key
-- form (classid 1400136046, objid its `liveness_key`): PostgreSQL releases it the moment that
-- session ends, so a process killed with `kill -9` shows at once as a key no session holds
-- (`pg_locks`), while a process that is only slow or paused (SIGSTOP) keeps it. Rescue takes a
-- dead worker's jobs back at once; an expired lease of a worker that still holds its lock is
-- left alone until the worker's heartbeat is older than the hang limit.
CREATE SEQUENCE workers_liveness_key_seq AS integer MINVALUE 1 CYCLE;
ALTER TABLE workers ADD COLUMN liveness_key integer;
-- When its listening session last took the lock. Every session ends with a server restart;
-- a lock missing after this time (the worker had taken it again on the new server) means the
-- process died, while a lock not yet taken again may belong to a worker still reconnecting.
ALTER TABLE workers ADD COLUMN liveness_locked_at timestamptz;
GRANT USAGE ON SEQUENCE workers_liveness_key_seq TO steno_worker;

-- A job taken back because its worker died is not charged an attempt; such rescues have a
-- budget of their own. A job that was running when its worker died twice runs alone next
-- time (`runs_alone`: a worker claims it only when it runs nothing else, and claims nothing
-- beside it), so that a job that kills its worker is found without taking its neighbours down.
ALTER TABLE jobs ADD COLUMN crash_rescues integer NOT NULL DEFAULT 0 CHECK (crash_rescues >= 0);
ALTER TABLE jobs ADD COLUMN runs_alone boolean NOT NULL DEFAULT false;
-- The claim of a job that must run alone reads the few such rows only.
CREATE INDEX jobs_alone_idx ON jobs (priority DESC, run_at, id) WHERE state = 'queued' AND runs_alone;

ALTER TABLE job_attempts DROP CONSTRAINT job_attempts_outcome_check;
ALTER TABLE job_attempts ADD CONSTRAINT job_attempts_outcome_check
    CHECK (outcome IN ('succeeded', 'failed', 'retry', 'cancelled', 'lease_expired', 'released', 'worker_died'));
