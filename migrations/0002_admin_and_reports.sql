-- What the admin CLI stores for the worker (chapter selection, listening focus) and the views
-- that `steno status`, `steno report` and operators' own SQL read.

-- 0-based chapters.index values to transcribe, or NULL for every chapter. The worker creates
-- chapter rows (and jobs) only for these; `steno enqueue --chapters 1,3-5` stores {0,2,3,4}.
ALTER TABLE media
    ADD COLUMN chapter_selection integer[]
        CHECK (chapter_selection IS NULL OR (cardinality(chapter_selection) > 0 AND 0 <= ALL (chapter_selection))),
    -- The chapter (0-based index) a listener is on, set by `steno focus`: its jobs run at high
    -- priority, the next chapter's at medium at least, the others at the media's priority.
    ADD COLUMN focus_chapter integer CHECK (focus_chapter >= 0);

COMMENT ON COLUMN media.chapter_selection IS '0-based chapters.index values to transcribe; NULL for all';
COMMENT ON COLUMN media.focus_chapter IS '0-based index of the chapter being listened to (steno focus); NULL for none';

-- The priority of a chapter's jobs under a listening focus.
CREATE FUNCTION steno_focus_priority(focus integer, chapter_index integer, base smallint) RETURNS smallint
LANGUAGE sql IMMUTABLE AS $$
    SELECT (CASE
        WHEN focus IS NULL THEN base
        WHEN chapter_index = focus THEN 2
        WHEN chapter_index = focus + 1 THEN greatest(base, 1)
        ELSE base
    END)::smallint
$$;

-- Jobs created after `steno focus` (chunk jobs of a chapter planned later, a merge) get the
-- focus priority without the worker knowing about focus at all.
CREATE FUNCTION steno_jobs_follow_focus() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    focused smallint;
BEGIN
    SELECT steno_focus_priority(m.focus_chapter, c.index, m.priority) INTO focused
    FROM chapters c JOIN media m ON m.id = c.media_id
    WHERE c.id = NEW.chapter_id AND m.focus_chapter IS NOT NULL;
    IF FOUND THEN
        NEW.priority := focused;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER jobs_follow_focus BEFORE INSERT ON jobs
    FOR EACH ROW WHEN (NEW.chapter_id IS NOT NULL) EXECUTE FUNCTION steno_jobs_follow_focus();

-- Progress of each chapter. Percent is the audio duration of succeeded chunks over that of all
-- chunks (a chunk split in two counts through its halves), so long chunks weigh more.
CREATE VIEW steno_chapter_progress AS
SELECT c.media_id,
       c.id AS chapter_id,
       c.index + 1 AS number,
       c.title,
       c.state,
       CASE c.state
           WHEN 'planning' THEN 'extracting'
           WHEN 'succeeded' THEN 'done'
           ELSE c.state
       END AS stage,
       c.start_seconds,
       c.end_seconds,
       c.end_seconds - c.start_seconds AS duration_seconds,
       k.chunks,
       k.chunks_done,
       k.chunks_failed,
       CASE
           WHEN c.state = 'succeeded' THEN 100.0
           WHEN k.chunk_seconds > 0 THEN round((100 * k.done_seconds / k.chunk_seconds)::numeric, 1)
           ELSE 0.0
       END AS percent,
       j.attempts,
       j.failed_jobs,
       j.active_jobs,
       j.priority,
       k.cost_usd,
       CASE WHEN k.done_seconds > 0 THEN round(k.cost_usd * (k.chunk_seconds / k.done_seconds)::numeric, 6) END AS estimated_cost_usd,
       COALESCE(c.error_class, f.error_class) AS error_class,
       COALESCE(c.error_message, f.error_message) AS error_message,
       c.updated_at,
       c.finished_at
FROM chapters c
CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE ch.state <> 'split') AS chunks,
           count(*) FILTER (WHERE ch.state = 'succeeded') AS chunks_done,
           count(*) FILTER (WHERE ch.state = 'failed') AS chunks_failed,
           COALESCE(sum(ch.end_seconds - ch.start_seconds) FILTER (WHERE ch.state <> 'split'), 0) AS chunk_seconds,
           COALESCE(sum(ch.end_seconds - ch.start_seconds) FILTER (WHERE ch.state = 'succeeded'), 0) AS done_seconds,
           COALESCE(sum(ch.cost_usd), 0) AS cost_usd
    FROM chunks ch WHERE ch.chapter_id = c.id
) k
CROSS JOIN LATERAL (
    SELECT COALESCE(sum(jb.attempt), 0) AS attempts,
           count(*) FILTER (WHERE jb.state = 'failed') AS failed_jobs,
           count(*) FILTER (WHERE jb.state IN ('queued', 'running')) AS active_jobs,
           max(jb.priority) FILTER (WHERE jb.state IN ('queued', 'running')) AS priority
    FROM jobs jb WHERE jb.chapter_id = c.id
) j
LEFT JOIN LATERAL (
    SELECT jb.error_class, jb.error_message FROM jobs jb
    WHERE jb.chapter_id = c.id AND jb.state = 'failed'
    ORDER BY jb.finished_at DESC NULLS LAST, jb.id DESC LIMIT 1
) f ON true;

-- Progress of each media: stage, percent weighted by chapter duration, attempts, cost so far and
-- the projected total, and the failure reason (the media's own, else a failed chapter's, else
-- the latest failed job's).
CREATE VIEW steno_progress AS
SELECT m.id AS media_id,
       m.title,
       m.source,
       m.state,
       CASE m.state
           WHEN 'succeeded' THEN 'done'
           WHEN 'transcribing' THEN CASE
               WHEN ch.transcribing > 0 THEN 'transcribing'
               WHEN ch.extracting > 0 THEN 'extracting'
               WHEN ch.merging > 0 THEN 'merging'
               ELSE 'transcribing'
           END
           ELSE m.state
       END AS stage,
       m.priority,
       m.duration_seconds,
       ch.chapters,
       ch.chapters_done,
       ch.chapters_failed,
       ch.chunks,
       ch.chunks_done,
       ch.chunks_failed,
       CASE
           WHEN m.state = 'succeeded' THEN 100.0
           WHEN ch.seconds > 0 THEN round((100 * ch.done_seconds / ch.seconds)::numeric, 1)
           ELSE 0.0
       END AS percent,
       j.attempts,
       j.failed_jobs,
       j.active_jobs,
       ch.cost_usd,
       CASE WHEN ch.done_seconds > 0 THEN round(ch.cost_usd * (ch.seconds / ch.done_seconds)::numeric, 6) END AS estimated_cost_usd,
       COALESCE(m.error_class, ch.error_class, j.error_class) AS error_class,
       COALESCE(m.error_message, ch.error_message, j.error_message) AS error_message,
       m.chapter_selection,
       m.focus_chapter,
       m.created_at,
       m.updated_at,
       m.finished_at
FROM media m
CROSS JOIN LATERAL (
    SELECT count(*) AS chapters,
           count(*) FILTER (WHERE cp.state = 'succeeded') AS chapters_done,
           count(*) FILTER (WHERE cp.state = 'failed') AS chapters_failed,
           count(*) FILTER (WHERE cp.state = 'transcribing') AS transcribing,
           count(*) FILTER (WHERE cp.state IN ('queued', 'planning')) AS extracting,
           count(*) FILTER (WHERE cp.state = 'merging') AS merging,
           COALESCE(sum(cp.chunks), 0) AS chunks,
           COALESCE(sum(cp.chunks_done), 0) AS chunks_done,
           COALESCE(sum(cp.chunks_failed), 0) AS chunks_failed,
           sum(cp.duration_seconds) FILTER (WHERE cp.state <> 'cancelled') AS seconds,
           sum(cp.duration_seconds * cp.percent::float8 / 100) FILTER (WHERE cp.state <> 'cancelled') AS done_seconds,
           COALESCE(sum(cp.cost_usd), 0) AS cost_usd,
           (array_agg(cp.error_class ORDER BY cp.number) FILTER (WHERE cp.state = 'failed'))[1] AS error_class,
           (array_agg(cp.error_message ORDER BY cp.number) FILTER (WHERE cp.state = 'failed'))[1] AS error_message
    FROM steno_chapter_progress cp WHERE cp.media_id = m.id
) ch
CROSS JOIN LATERAL (
    SELECT COALESCE(sum(jb.attempt), 0) AS attempts,
           count(*) FILTER (WHERE jb.state = 'failed') AS failed_jobs,
           count(*) FILTER (WHERE jb.state IN ('queued', 'running')) AS active_jobs,
           (array_agg(jb.error_class ORDER BY jb.finished_at DESC NULLS LAST, jb.id DESC) FILTER (WHERE jb.state = 'failed'))[1] AS error_class,
           (array_agg(jb.error_message ORDER BY jb.finished_at DESC NULLS LAST, jb.id DESC) FILTER (WHERE jb.state = 'failed'))[1] AS error_message
    FROM jobs jb WHERE jb.media_id = m.id
) j;

-- Queue depth by kind and state. `ready` jobs may be claimed now; `delayed` ones wait for
-- their retry time.
CREATE VIEW steno_queue AS
SELECT kind,
       state,
       count(*) AS jobs,
       count(*) FILTER (WHERE state = 'queued' AND run_at <= now()) AS ready,
       count(*) FILTER (WHERE state = 'queued' AND run_at > now()) AS delayed,
       round(extract(epoch FROM now() - min(created_at))::numeric, 1) AS oldest_age_seconds
FROM jobs
GROUP BY kind, state;

-- Work finished per hour: media and their audio hours, chunks and the audio hours sent.
CREATE VIEW steno_throughput AS
SELECT hour,
       sum(media_done) AS media_done,
       round(sum(media_seconds)::numeric / 3600, 3) AS media_audio_hours,
       sum(chunks_done) AS chunks_done,
       round(sum(chunk_seconds)::numeric / 3600, 3) AS chunk_audio_hours
FROM (
    SELECT date_trunc('hour', finished_at) AS hour, count(*) AS media_done,
           COALESCE(sum(duration_seconds), 0) AS media_seconds, 0 AS chunks_done, 0 AS chunk_seconds
    FROM media WHERE state = 'succeeded' AND finished_at IS NOT NULL
    GROUP BY 1
    UNION ALL
    SELECT date_trunc('hour', finished_at), 0, 0, count(*), sum(end_seconds - start_seconds)
    FROM chunks WHERE state = 'succeeded' AND finished_at IS NOT NULL
    GROUP BY 1
) AS finished
GROUP BY hour;

-- Time from enqueue to done for every finished media, and how many times faster than real time.
CREATE VIEW steno_latency AS
SELECT id AS media_id,
       title,
       state,
       created_at,
       finished_at,
       extract(epoch FROM finished_at - created_at)::float8 AS enqueue_to_done_seconds,
       duration_seconds,
       duration_seconds / NULLIF(extract(epoch FROM finished_at - created_at)::float8, 0) AS speed_factor
FROM media
WHERE finished_at IS NOT NULL AND state IN ('succeeded', 'failed', 'cancelled');

-- Failed attempts per hour, job kind and failure class: `attempts` counts every failed try,
-- `final` those that failed the job for good (the others were retried).
CREATE VIEW steno_failures AS
SELECT date_trunc('hour', a.finished_at) AS hour,
       j.kind,
       COALESCE(a.error_class, 'unknown') AS error_class,
       count(*) AS attempts,
       count(*) FILTER (WHERE a.outcome = 'failed') AS final,
       count(DISTINCT a.job_id) AS jobs,
       (array_agg(a.message ORDER BY a.finished_at DESC) FILTER (WHERE a.message IS NOT NULL))[1] AS last_message,
       (array_agg(a.http_status ORDER BY a.finished_at DESC) FILTER (WHERE a.http_status IS NOT NULL))[1] AS last_http_status
FROM job_attempts a
JOIN jobs j ON j.id = a.job_id
WHERE a.outcome IN ('failed', 'retry', 'lease_expired') AND a.finished_at IS NOT NULL
GROUP BY 1, 2, 3;

-- Transcription cost per day, model and backend. Audio hours are what the backend billed
-- (usage_seconds) where it said, else the chunk's length.
CREATE VIEW steno_costs AS
SELECT date_trunc('day', finished_at)::date AS day,
       COALESCE(model, 'unknown') AS model,
       COALESCE(backend, 'unknown') AS backend,
       count(*) AS chunks,
       round(sum(COALESCE(usage_seconds, end_seconds - start_seconds))::numeric / 3600, 3) AS audio_hours,
       COALESCE(sum(cost_usd), 0) AS cost_usd,
       round(COALESCE(sum(cost_usd), 0) / NULLIF(sum(COALESCE(usage_seconds, end_seconds - start_seconds))::numeric / 3600, 0), 4)
           AS usd_per_audio_hour
FROM chunks
WHERE finished_at IS NOT NULL AND (state = 'succeeded' OR cost_usd IS NOT NULL)
GROUP BY 1, 2, 3;

-- Workers with the jobs they hold right now and the age of their last heartbeat.
CREATE VIEW steno_worker_status AS
SELECT w.id,
       w.hostname,
       w.pid,
       w.version,
       w.status,
       w.status_message,
       w.jobs_in_flight,
       (SELECT count(*) FROM jobs j WHERE j.state = 'running' AND j.lease_owner = w.id) AS running_jobs,
       w.paused_backends,
       w.started_at,
       w.last_heartbeat_at,
       round(extract(epoch FROM now() - w.last_heartbeat_at)::numeric, 1) AS heartbeat_age_seconds,
       w.stopped_at
FROM workers w;

GRANT SELECT ON steno_chapter_progress, steno_progress, steno_queue, steno_throughput, steno_latency,
    steno_failures, steno_costs, steno_worker_status TO steno_reporting, steno_admin, steno_worker;
