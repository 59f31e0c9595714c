-- A fleet shared fairly between tenants (docs/architecture.md, "Fair share between tenants").
--
-- The claim hands jobs out across tenants in proportion to each tenant's share of the jobs in
-- flight, whatever the size of each backlog, and inside a tenant interleaves its media so that
-- a short recording is not queued behind a long one. Each tenant may have a cap on chunk jobs
-- in flight and budgets per day and per month (UTC) in audio hours sent to the backend or in
-- cost; all are changeable while the fleet runs (`steno tenants set`, the admin API).

CREATE TABLE tenants (
    name                text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'),
    -- Relative weight: a tenant with share 2 gets twice the jobs in flight of one with share 1
    -- while both have work ready.
    share               double precision NOT NULL DEFAULT 1 CHECK (share > 0 AND share <= 1000),
    -- At most this many chunk jobs of the tenant run at once, fleet-wide; NULL: no cap.
    max_in_flight       integer CHECK (max_in_flight > 0),
    -- Budgets; NULL: none. Audio hours are what the backend is paid for (paid seconds).
    daily_audio_hours   double precision CHECK (daily_audio_hours >= 0),
    monthly_audio_hours double precision CHECK (monthly_audio_hours >= 0),
    daily_cost_usd      numeric(12, 6) CHECK (daily_cost_usd >= 0),
    monthly_cost_usd    numeric(12, 6) CHECK (monthly_cost_usd >= 0),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

INSERT INTO tenants (name) VALUES ('default');
INSERT INTO tenants (name) SELECT DISTINCT tenant FROM media ON CONFLICT DO NOTHING;
INSERT INTO tenants (name) SELECT DISTINCT tenant FROM api_keys ON CONFLICT DO NOTHING;
INSERT INTO tenants (name) SELECT DISTINCT tenant FROM voice_profiles ON CONFLICT DO NOTHING;

-- Every tenant of a media or an API key has a row, however it came (CLI, API, SQL).
CREATE FUNCTION steno_ensure_tenant() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tenants (name) VALUES (NEW.tenant) ON CONFLICT DO NOTHING;
    RETURN NEW;
END $$;
CREATE TRIGGER media_tenant BEFORE INSERT ON media FOR EACH ROW EXECUTE FUNCTION steno_ensure_tenant();
CREATE TRIGGER api_keys_tenant BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION steno_ensure_tenant();

-- Jobs carry their media's tenant, so that the claim reads each tenant's queue in one index.
-- `fair_key` orders a tenant's jobs of one priority: a job enters at the tenant's head (the key
-- of its next job to be claimed) plus its offset among the jobs inserted with it (a chapter's
-- index, a chunk's position), so the media of a tenant interleave instead of queueing one
-- behind another (start-time fair queueing).
ALTER TABLE jobs ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE jobs ADD COLUMN fair_key bigint NOT NULL DEFAULT 0;

UPDATE jobs j SET tenant = m.tenant FROM media m WHERE m.id = j.media_id AND m.tenant <> 'default';
-- Queued jobs keep today's order (first in, first out) inside their tenant.
UPDATE jobs j SET fair_key = o.position
FROM (SELECT id, row_number() OVER (PARTITION BY tenant ORDER BY run_at, id) AS position FROM jobs WHERE state = 'queued') o
WHERE o.id = j.id;

-- Per tenant, in claim order: the queued jobs that may run beside others, and those of them
-- that are not chunk jobs (a worker whose backend is paused claims only those).
CREATE INDEX jobs_tenant_claim_idx ON jobs (tenant, priority DESC, fair_key, run_at, id) WHERE state = 'queued' AND NOT runs_alone;
CREATE INDEX jobs_tenant_claim_other_idx ON jobs (tenant, priority DESC, fair_key, run_at, id)
    WHERE state = 'queued' AND NOT runs_alone AND kind <> 'chunk';
-- A tenant's jobs in flight are counted at each claim from `jobs_running_idx` (migration 0010),
-- once for all tenants: an index of them by tenant would cost every claim one more index
-- entry, and its scans would visit the same few heap rows anyway (running rows are never
-- all-visible).
-- Replaced by the per-tenant indexes above (`jobs_alone_idx` still serves jobs that run alone).
DROP INDEX jobs_claim_idx;
DROP INDEX jobs_claim_other_idx;

-- The key of the tenant's next job to be claimed; 0 for an empty queue.
CREATE FUNCTION steno_fair_head(for_tenant text) RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT fair_key FROM jobs
                     WHERE tenant = for_tenant AND state = 'queued' AND NOT runs_alone
                     ORDER BY priority DESC, fair_key, run_at, id LIMIT 1), 0)
$$;

-- An inserted job takes its media's tenant and enters at that tenant's head; the statement
-- that inserts it gives `fair_key` as its offset (0 unless it inserts several).
CREATE FUNCTION steno_job_tenant() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.media_id IS NOT NULL THEN
        NEW.tenant := (SELECT tenant FROM media WHERE id = NEW.media_id);
    END IF;
    NEW.fair_key := steno_fair_head(NEW.tenant) + NEW.fair_key;
    RETURN NEW;
END $$;
CREATE TRIGGER jobs_tenant BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION steno_job_tenant();

-- Use per tenant and UTC day: what budgets are checked against, and what billing reads
-- (`steno_tenant_usage`). Written when a chunk or a media finishes, so a budget check reads at
-- most 31 rows of one tenant.
CREATE TABLE tenant_usage (
    tenant        text NOT NULL,
    day           date NOT NULL,
    audio_seconds double precision NOT NULL DEFAULT 0,
    paid_seconds  double precision NOT NULL DEFAULT 0,
    cost_usd      numeric(14, 6) NOT NULL DEFAULT 0,
    chunks        integer NOT NULL DEFAULT 0,
    media         integer NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, day)
);

-- A chunk counts once, when it finishes: the audio it transcribed, what the backend was paid
-- for (as `steno_progress` counts it) and its cost. A split chunk counts only its cost: its
-- pieces count their audio.
CREATE FUNCTION steno_chunk_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tenant_usage AS u (tenant, day, audio_seconds, paid_seconds, cost_usd, chunks)
    SELECT m.tenant, (NEW.finished_at AT TIME ZONE 'UTC')::date,
           CASE WHEN NEW.state = 'succeeded' THEN NEW.end_seconds - NEW.start_seconds ELSE 0 END,
           CASE WHEN NEW.uploaded AND (NEW.state = 'succeeded' OR NEW.cost_usd IS NOT NULL)
                THEN coalesce(NEW.usage_seconds, NEW.end_seconds - NEW.start_seconds) ELSE 0 END,
           coalesce(NEW.cost_usd, 0),
           CASE WHEN NEW.state = 'succeeded' THEN 1 ELSE 0 END
    FROM media m WHERE m.id = NEW.media_id
    ON CONFLICT (tenant, day) DO UPDATE
    SET audio_seconds = u.audio_seconds + EXCLUDED.audio_seconds, paid_seconds = u.paid_seconds + EXCLUDED.paid_seconds,
        cost_usd = u.cost_usd + EXCLUDED.cost_usd, chunks = u.chunks + EXCLUDED.chunks;
    RETURN NULL;
END $$;
CREATE TRIGGER chunks_usage AFTER UPDATE OF finished_at ON chunks
    FOR EACH ROW WHEN (OLD.finished_at IS NULL AND NEW.finished_at IS NOT NULL) EXECUTE FUNCTION steno_chunk_usage();

CREATE FUNCTION steno_media_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tenant_usage AS u (tenant, day, media) VALUES (NEW.tenant, (NEW.finished_at AT TIME ZONE 'UTC')::date, 1)
    ON CONFLICT (tenant, day) DO UPDATE SET media = u.media + 1;
    RETURN NULL;
END $$;
CREATE TRIGGER media_usage AFTER UPDATE OF finished_at ON media
    FOR EACH ROW WHEN (OLD.finished_at IS NULL AND NEW.finished_at IS NOT NULL AND NEW.state = 'succeeded')
    EXECUTE FUNCTION steno_media_usage();

-- The history the previous release wrote, so that reports and this month's budgets include it.
INSERT INTO tenant_usage (tenant, day, audio_seconds, paid_seconds, cost_usd, chunks)
SELECT m.tenant, (k.finished_at AT TIME ZONE 'UTC')::date,
       coalesce(sum(k.end_seconds - k.start_seconds) FILTER (WHERE k.state = 'succeeded'), 0),
       coalesce(sum(coalesce(k.usage_seconds, k.end_seconds - k.start_seconds))
                FILTER (WHERE k.uploaded AND (k.state = 'succeeded' OR k.cost_usd IS NOT NULL)), 0),
       coalesce(sum(k.cost_usd), 0),
       count(*) FILTER (WHERE k.state = 'succeeded')
FROM chunks k JOIN media m ON m.id = k.media_id
WHERE k.finished_at IS NOT NULL
GROUP BY 1, 2;
INSERT INTO tenant_usage AS u (tenant, day, media)
SELECT tenant, (finished_at AT TIME ZONE 'UTC')::date, count(*) FROM media
WHERE finished_at IS NOT NULL AND state = 'succeeded' GROUP BY 1, 2
ON CONFLICT (tenant, day) DO UPDATE SET media = u.media + EXCLUDED.media;

-- Why a tenant may not start chunk jobs at `at`: the first budget its use has reached, in words
-- that say how to raise it; NULL when none is reached (or it has none). One definition, read by
-- the claim, the media holds and `steno tenants`.
CREATE FUNCTION steno_over_budget(for_tenant text, at timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
    WITH t AS (SELECT * FROM tenants WHERE name = for_tenant),
    today AS (
        SELECT coalesce(sum(paid_seconds), 0) / 3600 AS hours, coalesce(sum(cost_usd), 0) AS cost
        FROM tenant_usage WHERE tenant = for_tenant AND day = (at AT TIME ZONE 'UTC')::date
    ), month AS (
        SELECT coalesce(sum(paid_seconds), 0) / 3600 AS hours, coalesce(sum(cost_usd), 0) AS cost
        FROM tenant_usage WHERE tenant = for_tenant AND day >= date_trunc('month', at AT TIME ZONE 'UTC')::date
    )
    SELECT CASE
        WHEN t.daily_audio_hours IS NOT NULL AND today.hours >= t.daily_audio_hours THEN
            format('tenant %s reached its daily budget of %s audio hours (%s used today, UTC); raise it with `steno tenants set %s --daily-audio-hours N`, or wait for the next day',
                   t.name, t.daily_audio_hours, round(today.hours::numeric, 3), t.name)
        WHEN t.daily_cost_usd IS NOT NULL AND today.cost >= t.daily_cost_usd THEN
            format('tenant %s reached its daily budget of $%s (%s spent today, UTC); raise it with `steno tenants set %s --daily-cost N`, or wait for the next day',
                   t.name, t.daily_cost_usd, round(today.cost, 4), t.name)
        WHEN t.monthly_audio_hours IS NOT NULL AND month.hours >= t.monthly_audio_hours THEN
            format('tenant %s reached its monthly budget of %s audio hours (%s used this month, UTC); raise it with `steno tenants set %s --monthly-audio-hours N`, or wait for the next month',
                   t.name, t.monthly_audio_hours, round(month.hours::numeric, 3), t.name)
        WHEN t.monthly_cost_usd IS NOT NULL AND month.cost >= t.monthly_cost_usd THEN
            format('tenant %s reached its monthly budget of $%s (%s spent this month, UTC); raise it with `steno tenants set %s --monthly-cost N`, or wait for the next month',
                   t.name, t.monthly_cost_usd, round(month.cost, 4), t.name)
    END
    FROM t, today, month
$$;

-- Billing: each tenant's use by UTC day.
CREATE VIEW steno_tenant_usage AS
SELECT tenant, day, audio_seconds, paid_seconds, cost_usd, chunks, media FROM tenant_usage;

GRANT SELECT ON tenants, tenant_usage, steno_tenant_usage TO steno_reporting;
GRANT SELECT, INSERT ON tenants TO steno_worker, steno_api;
GRANT SELECT, INSERT, UPDATE ON tenant_usage TO steno_worker, steno_admin, steno_api;
GRANT SELECT, INSERT, UPDATE, DELETE ON tenants TO steno_admin;
GRANT SELECT ON steno_tenant_usage TO steno_admin, steno_api;
