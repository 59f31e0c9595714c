-- Operating the fleet is a scope of its own (`operate`): reading and changing every tenant's share,
-- cap and budgets, and reading the fleet's workers and report. Until now an admin key of the tenant
-- named `default` did all of that, so any tenant given that name, or any admin key made for it by
-- `steno keys create` without `--tenant`, could change every other tenant.
--
-- The keys that operated the fleet before keep doing so: every unrevoked admin key of `default`
-- becomes an operate key (the only change to data). Every other admin key keeps its scope and from
-- now on reaches its own tenant only.

ALTER TABLE api_keys DROP CONSTRAINT api_keys_scope_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scope_check CHECK (scope IN ('read', 'submit', 'admin', 'operate'));
UPDATE api_keys SET scope = 'operate' WHERE scope = 'admin' AND tenant = 'default' AND revoked_at IS NULL;
