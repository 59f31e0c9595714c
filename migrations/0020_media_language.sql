-- One language per media (docs/architecture.md, "Languages").
--
-- A media enqueued without a language used to be sent bare, chunk by chunk, and the backend
-- detected the language of each chunk on its own: a short or noisy chunk could come back in
-- another language, and the media never learnt its language. Now each answer's language is
-- kept with its chunk, and once enough of the media's speech agrees (`LanguageVote`), the
-- media's language is settled: every later chunk is sent with it, an answer in another
-- language is asked again in it, and search stems the media's words in it.

-- The language the backend detected for the media, settled by the vote of its chunks' answers
-- (an ISO 639-1 code). NULL until settled, and for a media whose language was given.
ALTER TABLE media ADD COLUMN detected_language text;
-- `steno enqueue --language multi`: the media speaks several languages; each chunk is sent
-- bare and keeps its own, and nothing is settled.
ALTER TABLE media ADD COLUMN multilingual boolean NOT NULL DEFAULT false;
ALTER TABLE media ADD CONSTRAINT media_language_mode CHECK (NOT (multilingual AND language IS NOT NULL));
-- `steno enqueue --translate`: every chunk is translated into English by the backend's
-- /v1/audio/translations; the transcript is English. `language`, if given, is what is spoken.
ALTER TABLE media ADD COLUMN translate boolean NOT NULL DEFAULT false;

-- The language of a media's text: English when translated, else the one given, else the one
-- detected; NULL while not known.
CREATE FUNCTION steno_text_language(language text, detected_language text, translate boolean) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN translate THEN 'en' ELSE coalesce(language, detected_language) END
$$;

-- The language a chunk's kept answer is in: the one it was asked in, else the one the backend
-- said it detected. NULL for chunks answered before this migration, and for answers that did
-- not say.
ALTER TABLE chunks ADD COLUMN language text;

-- Search stems a media's words in the language of its text.
CREATE OR REPLACE FUNCTION steno_segment_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.search := CASE WHEN NEW.flag IS NULL THEN
        to_tsvector(steno_search_config((SELECT steno_text_language(language, detected_language, translate) FROM media WHERE id = NEW.media_id)), NEW.text) END;
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION steno_media_search_language() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    UPDATE segments SET search = CASE WHEN flag IS NULL THEN to_tsvector(steno_search_config(steno_text_language(NEW.language, NEW.detected_language, NEW.translate)), text) END
    WHERE media_id = NEW.id;
    RETURN NULL;
END
$$;
DROP TRIGGER media_search_language ON media;
CREATE TRIGGER media_search_language AFTER UPDATE OF language, detected_language, translate ON media
    FOR EACH ROW WHEN (steno_text_language(OLD.language, OLD.detected_language, OLD.translate)
                       IS DISTINCT FROM steno_text_language(NEW.language, NEW.detected_language, NEW.translate))
    EXECUTE FUNCTION steno_media_search_language();

-- Workers settle a media's language; they may change no other setting of it.
GRANT UPDATE (detected_language) ON media TO steno_worker;

-- What status, the API and the web view show of a media's language: the one given, else the one
-- detected (for a translated media, the one spoken, if given); whether it was detected; whether
-- the media speaks several; whether it is translated into English.
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
       ch.paid_seconds,
       CASE WHEN m.translate THEN m.language ELSE coalesce(m.language, m.detected_language) END AS language,
       (m.language IS NULL AND m.detected_language IS NOT NULL AND NOT m.translate) AS language_detected,
       m.multilingual,
       m.translate
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
