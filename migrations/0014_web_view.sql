-- The web view served by steno-api: signed-in sessions, full-text search over transcripts, and
-- each worker's request window towards its backend for the overview.

-- A browser session made by signing in with an API key. Like the key, it is stored as the
-- SHA-256 of its text (the cookie), never the text. It lasts until `expires_at`, until it is
-- signed out, or until its key is revoked (every lookup joins the key), whichever is first.
CREATE TABLE web_sessions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash  bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    key_id      bigint NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL CHECK (expires_at > created_at)
);
CREATE INDEX web_sessions_expiry_idx ON web_sessions (expires_at);

-- The text search configuration for a media's language (an ISO 639 code such as en or pt-BR):
-- PostgreSQL's stemmer for the languages it has one for, `simple` (no stemming, no stop words)
-- for the others and for media whose language is not known.
CREATE FUNCTION steno_search_config(language text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (CASE lower(split_part(replace(coalesce(language, ''), '_', '-'), '-', 1))
        WHEN 'ar' THEN 'arabic' WHEN 'hy' THEN 'armenian' WHEN 'eu' THEN 'basque' WHEN 'ca' THEN 'catalan'
        WHEN 'da' THEN 'danish' WHEN 'nl' THEN 'dutch' WHEN 'en' THEN 'english' WHEN 'fi' THEN 'finnish'
        WHEN 'fr' THEN 'french' WHEN 'de' THEN 'german' WHEN 'el' THEN 'greek' WHEN 'hi' THEN 'hindi'
        WHEN 'hu' THEN 'hungarian' WHEN 'id' THEN 'indonesian' WHEN 'ga' THEN 'irish' WHEN 'it' THEN 'italian'
        WHEN 'lt' THEN 'lithuanian' WHEN 'ne' THEN 'nepali' WHEN 'no' THEN 'norwegian' WHEN 'nb' THEN 'norwegian'
        WHEN 'nn' THEN 'norwegian' WHEN 'pt' THEN 'portuguese' WHEN 'ro' THEN 'romanian' WHEN 'ru' THEN 'russian'
        WHEN 'sr' THEN 'serbian' WHEN 'es' THEN 'spanish' WHEN 'sv' THEN 'swedish' WHEN 'ta' THEN 'tamil'
        WHEN 'tr' THEN 'turkish' WHEN 'yi' THEN 'yiddish'
        ELSE 'simple' END)::regconfig
$$;

-- Each segment's lexemes, kept by the database whoever writes the row. Flagged segments (text
-- the quality gate held back: music, silence, loops) are not searched, as they are not exported.
ALTER TABLE segments ADD COLUMN search tsvector;

CREATE FUNCTION steno_segment_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.search := CASE WHEN NEW.flag IS NULL THEN
        to_tsvector(steno_search_config((SELECT language FROM media WHERE id = NEW.media_id)), NEW.text) END;
    RETURN NEW;
END
$$;
CREATE TRIGGER segments_search BEFORE INSERT OR UPDATE OF text, flag ON segments
    FOR EACH ROW EXECUTE FUNCTION steno_segment_search();

-- A media whose language changes is searched in its new language. Definer's rights: the role
-- that changes a media's language need not be able to write its segments.
CREATE FUNCTION steno_media_search_language() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    UPDATE segments SET search = CASE WHEN flag IS NULL THEN to_tsvector(steno_search_config(NEW.language), text) END
    WHERE media_id = NEW.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER media_search_language AFTER UPDATE OF language ON media
    FOR EACH ROW WHEN (OLD.language IS DISTINCT FROM NEW.language) EXECUTE FUNCTION steno_media_search_language();

-- The segments already written (a million take about half a minute).
UPDATE segments s SET search = to_tsvector(steno_search_config(m.language), s.text)
FROM media m WHERE m.id = s.media_id AND s.flag IS NULL;

CREATE INDEX segments_search_idx ON segments USING gin (search);
-- The reader opens a chapter at a moment: the segment playing then, without reading the chapter.
CREATE INDEX segments_chapter_time_idx ON segments (chapter_id, start_seconds);

-- What each worker's heartbeat says of its backend: its name, the request window the AIMD
-- limiter allows now, and the requests in flight. The overview shows them per backend.
ALTER TABLE workers ADD COLUMN backend text;
ALTER TABLE workers ADD COLUMN request_limit double precision CHECK (request_limit >= 0);
ALTER TABLE workers ADD COLUMN requests_in_flight integer CHECK (requests_in_flight >= 0);

GRANT SELECT, INSERT, DELETE ON web_sessions TO steno_api;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO steno_api;
GRANT SELECT, DELETE ON web_sessions TO steno_admin;

-- The overview's pace and spend read the last hour and day of finished chunks, not all of them.
CREATE INDEX chunks_finished_idx ON chunks (finished_at) WHERE finished_at IS NOT NULL;
