-- A queue that costs PostgreSQL less per job (bench/queue measures it against PgQueuer).
--
-- 1. Heartbeats are HOT updates. A heartbeat changes only `lease_expires_at` and `updated_at`;
--    with no index on either, PostgreSQL rewrites the row in place on its page and touches no
--    index. Rescue finds running jobs through a partial index on the few running rows and
--    checks their leases there.
DROP INDEX jobs_lease_idx;
CREATE INDEX jobs_running_idx ON jobs (id) WHERE state = 'running';

-- 2. `jobs_state_kind_idx` took an entry on every claim and every finish. Due work by kind
--    reads `jobs_due_idx` (0008), running jobs `jobs_running_idx`, a media's jobs `jobs_media_idx`.
DROP INDEX jobs_state_kind_idx;

-- 3. Workers are woken only when a job becomes claimable. The statement-level trigger of 0001
--    copied every updated row into a transition table on every claim, heartbeat and finish to
--    look for a requeued one. A row trigger with a WHEN clause is checked by the executor, with
--    no function call and no copy, and fires only for a job that becomes `queued` again (a retry,
--    a hand-back, a rescue, `steno retry`). Inserts keep their statement-level trigger.
DROP TRIGGER jobs_notify_update ON jobs;
CREATE FUNCTION steno_notify_job_claimable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('steno_jobs', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER jobs_notify_requeue AFTER UPDATE OF state ON jobs
    FOR EACH ROW WHEN (NEW.state = 'queued' AND OLD.state IS DISTINCT FROM 'queued')
    EXECUTE FUNCTION steno_notify_job_claimable();

-- 4. One `job_attempts` row per attempt, written once when the attempt ends (its start is
--    `jobs.started_at` until then): a running attempt is the `jobs` row with its lease. The row
--    used to be inserted at the claim and updated at the end, each time with every index.
--    Rows of attempts that were running when this migration ran are completed by their end.
COMMENT ON TABLE job_attempts IS
    'One row per ended attempt of a job, written when it ends; a running attempt is the jobs row with its lease.';

-- 5. Each ended attempt writes its row and one index entry. The surrogate `id` (a sequence and
--    an index) named nothing (job, attempt) did not; (job, attempt) is the key now.
ALTER TABLE job_attempts DROP COLUMN id;
ALTER TABLE job_attempts ADD CONSTRAINT job_attempts_pkey PRIMARY KEY (job_id, attempt);
ALTER TABLE job_attempts DROP CONSTRAINT job_attempts_job_id_attempt_key;
--    The foreign key checked the job and locked its row (a WAL record) on every insert, though
--    the attempt is written in the same statement that ends the job. Deleting jobs (a media's,
--    by `steno delete`) still deletes their attempts, with one statement per delete.
ALTER TABLE job_attempts DROP CONSTRAINT job_attempts_job_id_fkey;
CREATE FUNCTION steno_delete_job_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_attempts a USING old_jobs o WHERE a.job_id = o.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER jobs_delete_attempts AFTER DELETE ON jobs
    REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT EXECUTE FUNCTION steno_delete_job_attempts();
--    Reports read attempts by time (`steno report --since`, steno_failures). Rows arrive in
--    finishing order, so a BRIN index serves those ranges, and an insert into the newest,
--    not yet summarised block range costs nothing.
DROP INDEX job_attempts_finished_idx;
CREATE INDEX job_attempts_finished_brin ON job_attempts USING brin (finished_at);
