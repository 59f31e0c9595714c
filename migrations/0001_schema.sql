-- Steno schema: media, chapters, chunks, segments, the job queue and its history, workers.
-- Every table cascades from media down, so deleting a media leaves no orphans.

CREATE TABLE media (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source            text NOT NULL CHECK (source <> ''),
    title             text,
    language          text,
    model             text,
    state             text NOT NULL DEFAULT 'queued'
                      CHECK (state IN ('queued', 'probing', 'transcribing', 'succeeded', 'failed', 'cancelled')),
    priority          smallint NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 2),
    container         text,
    audio_codec       text,
    sample_rate       integer,
    channels          integer,
    duration_seconds  double precision CHECK (duration_seconds >= 0),
    error_class       text,
    error_message     text,
    webhook_url       text,
    notified_at       timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz
);
CREATE INDEX media_state_idx ON media (state, created_at);
CREATE INDEX media_source_idx ON media (source);

CREATE TABLE chapters (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    media_id       bigint NOT NULL REFERENCES media (id) ON DELETE CASCADE,
    index          integer NOT NULL CHECK (index >= 0),
    title          text,
    start_seconds  double precision NOT NULL CHECK (start_seconds >= 0),
    end_seconds    double precision NOT NULL,
    state          text NOT NULL DEFAULT 'queued'
                   CHECK (state IN ('queued', 'planning', 'transcribing', 'merging', 'succeeded', 'failed', 'cancelled')),
    text           text,
    error_class    text,
    error_message  text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    finished_at    timestamptz,
    UNIQUE (media_id, index),
    CHECK (end_seconds > start_seconds)
);

CREATE TABLE chunks (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    media_id        bigint NOT NULL REFERENCES media (id) ON DELETE CASCADE,
    chapter_id      bigint NOT NULL REFERENCES chapters (id) ON DELETE CASCADE,
    index           integer NOT NULL CHECK (index >= 0),
    start_seconds   double precision NOT NULL CHECK (start_seconds >= 0),
    end_seconds     double precision NOT NULL,
    state           text NOT NULL DEFAULT 'queued'
                    CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'split')),
    text            text,
    segments        jsonb,
    words           jsonb,
    encoded_bytes   integer,
    backend         text,
    model           text,
    usage_seconds   double precision,
    cost_usd        numeric(12, 6),
    error_class     text,
    error_message   text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    UNIQUE (chapter_id, index),
    CHECK (end_seconds > start_seconds)
);
CREATE INDEX chunks_media_idx ON chunks (media_id);

CREATE TABLE segments (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    media_id       bigint NOT NULL REFERENCES media (id) ON DELETE CASCADE,
    chapter_id     bigint NOT NULL REFERENCES chapters (id) ON DELETE CASCADE,
    index          integer NOT NULL CHECK (index >= 0),
    start_seconds  double precision NOT NULL CHECK (start_seconds >= 0),
    end_seconds    double precision NOT NULL,
    text           text NOT NULL,
    words          jsonb,
    UNIQUE (chapter_id, index),
    CHECK (end_seconds >= start_seconds)
);
CREATE INDEX segments_media_idx ON segments (media_id);

CREATE TABLE jobs (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind              text NOT NULL CHECK (kind IN ('media', 'chapter', 'chunk', 'merge')),
    state             text NOT NULL DEFAULT 'queued'
                      CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    priority          smallint NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 2),
    run_at            timestamptz NOT NULL DEFAULT now(),
    attempt           integer NOT NULL DEFAULT 0 CHECK (attempt >= 0),
    max_attempts      integer NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
    media_id          bigint REFERENCES media (id) ON DELETE CASCADE,
    chapter_id        bigint REFERENCES chapters (id) ON DELETE CASCADE,
    chunk_id          bigint REFERENCES chunks (id) ON DELETE CASCADE,
    lease_owner       text,
    lease_expires_at  timestamptz,
    cancel_requested  boolean NOT NULL DEFAULT false,
    error_class       text,
    error_message     text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    started_at        timestamptz,
    finished_at       timestamptz,
    updated_at        timestamptz NOT NULL DEFAULT now(),
    -- A running job always has a lease; no other state has one.
    CHECK ((state = 'running') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL))
) WITH (fillfactor = 80);  -- room for HOT updates: jobs change state and lease often

-- The claim reads this index in order and stops after LIMIT rows; finished jobs are not in it.
CREATE INDEX jobs_claim_idx ON jobs (priority DESC, run_at, id) WHERE state = 'queued';
-- Rescue scans only running jobs.
CREATE INDEX jobs_lease_idx ON jobs (lease_expires_at) WHERE state = 'running';
CREATE INDEX jobs_media_idx ON jobs (media_id);
CREATE INDEX jobs_chapter_idx ON jobs (chapter_id) WHERE chapter_id IS NOT NULL;
CREATE INDEX jobs_chunk_idx ON jobs (chunk_id) WHERE chunk_id IS NOT NULL;
CREATE INDEX jobs_state_kind_idx ON jobs (state, kind);

CREATE TABLE job_attempts (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id        bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    attempt       integer NOT NULL CHECK (attempt > 0),
    worker        text NOT NULL,
    started_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    -- NULL while the attempt runs.
    outcome       text CHECK (outcome IN ('succeeded', 'failed', 'retry', 'cancelled', 'lease_expired', 'released')),
    error_class   text,
    http_status   integer,
    message       text,
    UNIQUE (job_id, attempt)
);
CREATE INDEX job_attempts_finished_idx ON job_attempts (finished_at);

CREATE TABLE workers (
    id                 text PRIMARY KEY,
    hostname           text NOT NULL,
    pid                integer NOT NULL,
    version            text NOT NULL,
    status             text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'draining', 'paused', 'stopped')),
    status_message     text,
    jobs_in_flight     integer NOT NULL DEFAULT 0,
    paused_backends    jsonb NOT NULL DEFAULT '{}',
    started_at         timestamptz NOT NULL DEFAULT now(),
    last_heartbeat_at  timestamptz NOT NULL DEFAULT now(),
    stopped_at         timestamptz
);

-- Wake idle workers whenever a statement makes jobs claimable: inserts, retries and rescues.
-- One notification per statement; PostgreSQL folds duplicates within a transaction.
CREATE FUNCTION steno_notify_jobs_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM new_jobs WHERE state = 'queued') THEN
        PERFORM pg_notify('steno_jobs', '');
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER jobs_notify_insert AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION steno_notify_jobs_queued();
CREATE TRIGGER jobs_notify_update AFTER UPDATE ON jobs
    REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION steno_notify_jobs_queued();

-- Roles: group roles without login; operators grant them to login users.
--   steno_worker     runs jobs: reads and writes the queue and the results
--   steno_admin      the CLI: everything the worker can, and deletes
--   steno_reporting  read-only SQL reports
-- Roles are cluster-wide, so another database in the cluster (or an administrator, for an owner
-- without CREATEROLE) may have made them already: only missing ones are created.
DO $$
DECLARE
    role_name text;
BEGIN
    FOREACH role_name IN ARRAY ARRAY['steno_worker', 'steno_admin', 'steno_reporting'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', role_name);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                NULL;
            END;
        END IF;
    END LOOP;
END
$$;

GRANT USAGE ON SCHEMA public TO steno_worker, steno_admin, steno_reporting;
GRANT SELECT ON media, chapters, chunks, segments, jobs, job_attempts, workers TO steno_reporting;
GRANT SELECT, INSERT, UPDATE ON media, chapters, chunks, segments, jobs, job_attempts, workers TO steno_worker;
GRANT DELETE ON segments, workers TO steno_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON media, chapters, chunks, segments, jobs, job_attempts, workers TO steno_admin;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO steno_worker, steno_admin;
GRANT SELECT ON steno_migrations TO steno_worker, steno_admin, steno_reporting;
