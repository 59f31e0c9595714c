-- The HTTP API (`steno-api`): keys with scopes and tenants, media that belong to a tenant,
-- idempotent submissions, progress notices for its event stream, and a role of its own.

-- A key is stored as the SHA-256 of its text, never the text: `steno keys create` shows the
-- key once. `prefix` (its first 12 characters) names it in `steno keys list` and in logs.
CREATE TABLE api_keys (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    prefix        text NOT NULL UNIQUE,
    token_hash    bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    scope         text NOT NULL CHECK (scope IN ('read', 'submit', 'admin')),
    tenant        text NOT NULL CHECK (tenant ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'),
    name          text CHECK (length(name) <= 200),
    created_at    timestamptz NOT NULL DEFAULT now(),
    revoked_at    timestamptz,
    -- Brought up to date at most once a minute per server process, not on every request.
    last_used_at  timestamptz
);

-- Every media belongs to a tenant: the API's media to their key's, the CLI's to `default`
-- unless `steno enqueue --tenant` names another. A key sees its tenant's media only.
ALTER TABLE media ADD COLUMN tenant text NOT NULL DEFAULT 'default'
    CHECK (tenant ~ '^[a-z0-9][a-z0-9_.-]{0,62}$');
-- An API client's `Idempotency-Key`: a retried POST finds the first media instead of adding one.
ALTER TABLE media ADD COLUMN idempotency_key text CHECK (length(idempotency_key) BETWEEN 1 AND 200);
-- The media's webhook came from an API client: workers post to it only at public addresses,
-- checked when they connect (OutboundURLPolicy), as the API checked it when it was given.
ALTER TABLE media ADD COLUMN webhook_from_client boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX media_idempotency_idx ON media (tenant, idempotency_key) WHERE idempotency_key IS NOT NULL;
-- A tenant's media list, newest first, pages by id.
CREATE INDEX media_tenant_idx ON media (tenant, id DESC);

-- Progress for the API's event stream: one notice per media whose media, chapter or chunk row
-- changed state (PostgreSQL sends one per payload per transaction, however many rows changed).
CREATE FUNCTION steno_notify_progress() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('steno_progress', NEW.media_id::text);
    RETURN NULL;
END
$$;
CREATE FUNCTION steno_notify_media_progress() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('steno_progress', NEW.id::text);
    RETURN NULL;
END
$$;
CREATE TRIGGER media_progress_notice AFTER INSERT OR UPDATE OF state ON media
    FOR EACH ROW EXECUTE FUNCTION steno_notify_media_progress();
CREATE TRIGGER chapters_progress_notice AFTER UPDATE OF state ON chapters
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION steno_notify_progress();
CREATE TRIGGER chunks_progress_notice AFTER UPDATE OF state ON chunks
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION steno_notify_progress();

-- steno-api's role: what the admin CLI may do with media (enqueue, cancel, retry, focus,
-- delete) and read, and of the keys only to look them up and mark them used. It cannot make,
-- change or revoke a key (that is `steno keys`, as steno_admin), nor touch outages and rate
-- limits beyond reading them.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'steno_api') THEN
        BEGIN
            CREATE ROLE steno_api NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;
        END;
    END IF;
END
$$;
GRANT USAGE ON SCHEMA public TO steno_api;
GRANT SELECT, INSERT, UPDATE, DELETE ON media, chapters, chunks, segments, jobs, job_attempts TO steno_api;
GRANT SELECT ON workers, backend_outages, backend_rate_limits, steno_migrations TO steno_api;
GRANT SELECT ON steno_chapter_progress, steno_progress, steno_queue, steno_throughput, steno_latency,
                steno_failures, steno_costs, steno_worker_status TO steno_api;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO steno_api;
GRANT SELECT (id, prefix, token_hash, scope, tenant, revoked_at) ON api_keys TO steno_api;
GRANT UPDATE (last_used_at) ON api_keys TO steno_api;
GRANT SELECT, INSERT, UPDATE ON api_keys TO steno_admin;
GRANT SELECT (id, prefix, scope, tenant, name, created_at, revoked_at, last_used_at) ON api_keys TO steno_reporting;
