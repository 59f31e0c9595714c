-- Least privilege for the three roles (0001 and 0002 granted more than each needs; migrations
-- only move forward, so this takes it back). The tables and views belong to the role that runs
-- `steno migrate` (the owner, `steno_owner` in the README); the three roles get only this:
--   steno_reporting  the reporting views, nothing else: no sources, webhook URLs or transcripts
--   steno_worker     the queue and the results it writes; of `media`, only the columns a worker
--                    sets (state, what the probe found, the failure, the webhook mark): it cannot
--                    add a media or change its source, webhook or other admin settings
--   steno_admin      the CLI: every table (it enqueues, cancels, retries and deletes)
-- The reporting views read the tables with their owner's rights, so they keep working.

REVOKE ALL ON media, chapters, chunks, segments, jobs, job_attempts, workers FROM steno_reporting;

REVOKE INSERT, UPDATE, DELETE ON media FROM steno_worker;
GRANT UPDATE (state, container, audio_codec, sample_rate, channels, duration_seconds,
              error_class, error_message, notified_at, updated_at, finished_at) ON media TO steno_worker;
