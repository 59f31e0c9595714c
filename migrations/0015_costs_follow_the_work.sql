-- Costs that follow the work: what `steno report --since`, `steno status <id>` and a worker's
-- claim read grows with the window asked for, the media shown or the jobs claimable, not with
-- the history kept (bench/scale measures it on 2,000 media and a million segments).
-- The indexes are built in the migration's transaction: on a jobs table of millions of rows,
-- job writes wait a few seconds for them, so migrate at a quiet moment.

-- `steno report` counts media finished in its window (throughput, time to done) by this index
-- instead of reading every media; chunks have `chunks_finished_idx` (0014) and attempts
-- `job_attempts_finished_brin` (0010). A media's row takes the entry once, when it finishes.
CREATE INDEX media_finished_idx ON media (finished_at) WHERE finished_at IS NOT NULL;

-- The report's queue shows the jobs finished in its window by kind and state beside those
-- waiting and running now. Each job takes the entry when it ends: that update changes `state`,
-- which the claim's partial indexes name, so it is never a HOT update and already writes index
-- entries; heartbeats, which are HOT, do not touch `finished_at`.
CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE finished_at IS NOT NULL;

-- A worker whose backend is paused or down claims every kind but chunks
-- (`JobStore.claim(kinds:)`). Read in `jobs_claim_idx`, it walked past every queued chunk job
-- (99,000 entries on the scale library) to find the few media, chapter and merge jobs. The
-- claim of those kinds reads this index instead, in the same order: the entries it holds are
-- the jobs it may claim. A chunk job never takes an entry here.
CREATE INDEX jobs_claim_other_idx ON jobs (priority DESC, run_at, id) WHERE state = 'queued' AND kind <> 'chunk';
