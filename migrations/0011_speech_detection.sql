-- Speech detection (Silero VAD in the worker) and the gates on what the backend answers.
--
-- A chunk the speech detector found no voice in (music, silence, noise longer than a few
-- seconds) is kept in the plan with its times, so the chunks still tile the chapter, and is
-- never sent: `uploaded` false, stored already succeeded with no text and no job.
ALTER TABLE chunks ADD COLUMN uploaded boolean NOT NULL DEFAULT true;
-- Seconds of detected speech in the chunk's audio, beside what was paid for (`usage_seconds`,
-- or the chunk's length when the backend reports no usage). NULL for chunks planned before
-- speech detection.
ALTER TABLE chunks ADD COLUMN speech_seconds double precision CHECK (speech_seconds >= 0);
-- What the gates held back from the chunk's answer, with why: [{"start", "end", "text",
-- "reason"}, ...]. Audited, never silently lost; the merge stores it as flagged segments.
ALTER TABLE chunks ADD COLUMN flagged jsonb;
-- A flagged segment: text the backend wrote where the gates found no speech, an invented
-- phrase or a loop. NULL for the transcript proper. Text exports leave flagged segments out;
-- `steno transcript --format json` shows them with their reason.
ALTER TABLE segments ADD COLUMN flag text;

-- Speech beside what is paid for, in the reporting views (columns added at the end, as
-- CREATE OR REPLACE VIEW requires). `speech_seconds`: detected speech; `paid_seconds`: what the
-- backend billed (usage_seconds) or the chunk's length, for uploaded chunks only (both asks of
-- a chunk whose first answer failed a gate). Chunks never uploaded cost nothing and are left out
-- of `steno_costs` and of the cost projections, which now scale by uploaded audio.

CREATE OR REPLACE VIEW steno_chapter_progress AS
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
       CASE WHEN k.uploaded_done_seconds > 0 THEN round(k.cost_usd * (k.upload_seconds / k.uploaded_done_seconds)::numeric, 6) END AS estimated_cost_usd,
       COALESCE(c.error_class, f.error_class) AS error_class,
       COALESCE(c.error_message, f.error_message) AS error_message,
       c.updated_at,
       c.finished_at,
       k.speech_seconds,
       k.paid_seconds,
       k.upload_seconds,
       k.uploaded_done_seconds
FROM chapters c
CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE ch.state <> 'split') AS chunks,
           count(*) FILTER (WHERE ch.state = 'succeeded') AS chunks_done,
           count(*) FILTER (WHERE ch.state = 'failed') AS chunks_failed,
           COALESCE(sum(ch.end_seconds - ch.start_seconds) FILTER (WHERE ch.state <> 'split'), 0) AS chunk_seconds,
           COALESCE(sum(ch.end_seconds - ch.start_seconds) FILTER (WHERE ch.state = 'succeeded'), 0) AS done_seconds,
           COALESCE(sum(ch.cost_usd), 0) AS cost_usd,
           COALESCE(sum(ch.end_seconds - ch.start_seconds) FILTER (WHERE ch.state <> 'split' AND ch.uploaded), 0) AS upload_seconds,
           COALESCE(sum(ch.end_seconds - ch.start_seconds) FILTER (WHERE ch.state = 'succeeded' AND ch.uploaded), 0) AS uploaded_done_seconds,
           sum(ch.speech_seconds) FILTER (WHERE ch.state <> 'split') AS speech_seconds,
           COALESCE(sum(COALESCE(ch.usage_seconds, ch.end_seconds - ch.start_seconds))
                        FILTER (WHERE ch.uploaded AND (ch.state = 'succeeded' OR ch.cost_usd IS NOT NULL)), 0) AS paid_seconds
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

CREATE OR REPLACE VIEW steno_progress AS
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
       CASE WHEN ch.uploaded_done_seconds > 0
            THEN round(ch.cost_usd * ((ch.upload_seconds + ch.unplanned_seconds) / ch.uploaded_done_seconds)::numeric, 6)
       END AS estimated_cost_usd,
       COALESCE(m.error_class, ch.error_class, j.error_class) AS error_class,
       COALESCE(m.error_message, ch.error_message, j.error_message) AS error_message,
       m.chapter_selection,
       m.focus_chapter,
       m.created_at,
       m.updated_at,
       m.finished_at,
       ch.speech_seconds,
       ch.paid_seconds
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
           sum(cp.speech_seconds) AS speech_seconds,
           COALESCE(sum(cp.paid_seconds), 0) AS paid_seconds,
           COALESCE(sum(cp.upload_seconds) FILTER (WHERE cp.chunks > 0 AND cp.state <> 'cancelled'), 0) AS upload_seconds,
           COALESCE(sum(cp.duration_seconds) FILTER (WHERE cp.chunks = 0 AND cp.state NOT IN ('cancelled', 'succeeded')), 0) AS unplanned_seconds,
           COALESCE(sum(cp.uploaded_done_seconds), 0) AS uploaded_done_seconds,
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

CREATE OR REPLACE VIEW steno_costs AS
SELECT date_trunc('day', finished_at)::date AS day,
       COALESCE(model, 'unknown') AS model,
       COALESCE(backend, 'unknown') AS backend,
       count(*) AS chunks,
       round(sum(COALESCE(usage_seconds, end_seconds - start_seconds))::numeric / 3600, 3) AS audio_hours,
       COALESCE(sum(cost_usd), 0) AS cost_usd,
       round(COALESCE(sum(cost_usd), 0) / NULLIF(sum(COALESCE(usage_seconds, end_seconds - start_seconds))::numeric / 3600, 0), 4)
           AS usd_per_audio_hour,
       round((sum(speech_seconds) / 3600)::numeric, 3) AS speech_hours
FROM chunks
WHERE finished_at IS NOT NULL AND (state = 'succeeded' OR cost_usd IS NOT NULL) AND uploaded
GROUP BY 1, 2, 3;
