-- Fleet-wide rate limits per backend (STENO_BACKEND_MAX_REQUESTS_PER_MINUTE,
-- STENO_BACKEND_MAX_AUDIO_SECONDS_PER_HOUR): one token bucket per limit, which every worker
-- locks, refills for the time passed and takes from before each request to the backend.
-- The limits are the last ones a worker used; `granted` and `waited` count requests let
-- through and turns a request had to wait, for `steno workers` and for reports.
CREATE TABLE backend_rate_limits (
    backend                 text PRIMARY KEY,
    requests_per_minute     double precision CHECK (requests_per_minute > 0),
    audio_seconds_per_hour  double precision CHECK (audio_seconds_per_hour > 0),
    requests                double precision NOT NULL,
    audio_seconds           double precision NOT NULL,
    refilled_at             timestamptz NOT NULL,
    granted                 bigint NOT NULL DEFAULT 0,
    waited                  bigint NOT NULL DEFAULT 0,
    updated_at              timestamptz NOT NULL DEFAULT now()
);

GRANT SELECT, INSERT, UPDATE ON backend_rate_limits TO steno_worker;
GRANT SELECT, DELETE ON backend_rate_limits TO steno_admin;
