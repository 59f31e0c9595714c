-- Every API key's tenant gets a row in `tenants`, and none is ever removed: a fleet can hold
-- 100,000 of them, most with no work. The claim and the workers' heartbeats read only the few
-- that set a rule: the capped ones (whose locks a claim takes) and those with a budget. These
-- indexes hold only those rows, so that neither reads the whole table. No data changes.
CREATE INDEX tenants_capped_idx ON tenants (name) WHERE max_in_flight IS NOT NULL;
CREATE INDEX tenants_budgeted_idx ON tenants (name)
    WHERE num_nonnulls(daily_audio_hours, monthly_audio_hours, daily_cost_usd, monthly_cost_usd) > 0;
-- Without statistics on the condition, the planner guesses a third of the rows hold a budget
-- and reads the whole table for "is there any": with them (ANALYZE fills them), it reads the
-- index above.
CREATE STATISTICS tenants_budgeted_stats ON (num_nonnulls(daily_audio_hours, monthly_audio_hours, daily_cost_usd, monthly_cost_usd))
    FROM tenants;
