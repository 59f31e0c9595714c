-- Who said what (docs/speakers.md). The chunk job measures the voice of each piece of speech it
-- decodes (Resemblyzer's GE2E encoder) and keeps the embeddings on the chunk, never the audio;
-- the chapter's merge clusters them, gives each group the media's speaker number (a voice known
-- from the media's other chapters keeps its number; numbers never change once given), labels
-- the segments and their words, and counts its share of each speaker in `chapter_voices`, which
-- is what later chapters match against. Names live on `speakers`; a named voice becomes a
-- profile of its tenant (`voice_profiles`), which recognises it in the tenant's later media.
-- Constant defaults and nullable columns: no table is rewritten, and every transcript written
-- before exports as it did (a media with fewer than two speakers shows no labels).

-- Per media: speaker detection on or off, and the number of speakers when the user knows it.
ALTER TABLE media
    ADD COLUMN speaker_detection boolean NOT NULL DEFAULT true,
    ADD COLUMN speakers_min integer CHECK (speakers_min BETWEEN 1 AND 64),
    ADD COLUMN speakers_max integer CHECK (speakers_max BETWEEN 1 AND 64),
    ADD CONSTRAINT media_speakers_bounds CHECK (speakers_min IS NULL OR speakers_max IS NULL OR speakers_min <= speakers_max);

-- The voice pieces of a chunk's audio: 276 bytes each (VoicePiece.encode: start and end as
-- float64, an 8-bit quantised 256-value embedding and its scale). NULL: not measured.
ALTER TABLE chunks ADD COLUMN voices bytea;
-- The chapter's speaker turns as its merge found them: [{"start", "end", "speaker"}].
ALTER TABLE chapters ADD COLUMN speaker_turns jsonb;
ALTER TABLE segments ADD COLUMN speaker integer;

CREATE TABLE voice_profiles (
    id          bigserial PRIMARY KEY,
    tenant      text NOT NULL CHECK (tenant ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'),
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    -- The sum of the embeddings of the voice's pieces where it was named; its direction is the voice.
    embedding   real[] NOT NULL,
    pieces      integer NOT NULL,
    -- The media the name was given in (its own speakers are not matched against it again).
    named_in    bigint,
    -- Set for a voice a transcription request brought (OpenAI's known_speaker_references[]):
    -- it names speakers of that media only, and goes with it.
    for_media   bigint REFERENCES media (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
-- One profile per name in a tenant.
CREATE UNIQUE INDEX voice_profiles_name_idx ON voice_profiles (tenant, name) WHERE for_media IS NULL;
CREATE INDEX voice_profiles_media_idx ON voice_profiles (for_media) WHERE for_media IS NOT NULL;

CREATE TABLE speakers (
    media_id    bigint NOT NULL REFERENCES media (id) ON DELETE CASCADE,
    number      integer NOT NULL CHECK (number >= 1),
    name        text CHECK (length(name) BETWEEN 1 AND 200),
    -- Set when the name came from a tenant's voice profile; `similarity` is the match's cosine
    -- similarity (1 is the same voice). A name the user gave has no profile match.
    profile_id  bigint REFERENCES voice_profiles (id) ON DELETE SET NULL,
    similarity  real,
    -- A name taken away (`steno speakers unname`): no profile names this speaker again.
    unmatched   boolean NOT NULL DEFAULT false,
    PRIMARY KEY (media_id, number)
);

CREATE TABLE chapter_voices (
    chapter_id    bigint NOT NULL REFERENCES chapters (id) ON DELETE CASCADE,
    media_id      bigint NOT NULL,
    speaker       integer NOT NULL,
    embedding     real[] NOT NULL,
    pieces        integer NOT NULL,
    talk_seconds  float8 NOT NULL,
    PRIMARY KEY (chapter_id, speaker),
    FOREIGN KEY (media_id, speaker) REFERENCES speakers (media_id, number) ON DELETE CASCADE
);
CREATE INDEX chapter_voices_media_idx ON chapter_voices (media_id);

GRANT UPDATE (voices) ON chunks TO steno_worker;
GRANT UPDATE (speaker_turns) ON chapters TO steno_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON speakers, chapter_voices TO steno_worker, steno_admin, steno_api;
GRANT SELECT ON voice_profiles TO steno_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON voice_profiles TO steno_admin, steno_api;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO steno_worker, steno_admin, steno_api;
