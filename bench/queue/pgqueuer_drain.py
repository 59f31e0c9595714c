#!/usr/bin/env python3
"""One PgQueuer consumer process for bench/queue: drains the `pgqueuer` table of no-op jobs.

Contract (the same as `steno-bench queue-drain`): connect and set up, print `ready`, wait for one
line on stdin, drain until the queue is empty, then print one JSON line
`{"jobs": N, "end": EPOCH}`: N the jobs this process completed, EPOCH the time.time() at which
the statement that completed its last job had returned.

The drain is PgQueuer's own consumer loop, `QueueManager.run(batch_size=B,
mode=QueueExecutionMode.drain)` on uvloop, over one asyncpg connection (what `pgq run` uses).
Its dequeue claims up to B jobs in one statement (and logs each pick); each finished job goes to
a `JobStatusLogBuffer` that `run` sizes to B and flushes when it holds B entries or after its
0.1 s timer, as one statement that deletes the jobs and logs them. Leaving `run` flushes what is
left in that buffer, so every job this process ran is complete when `run` returns.

Settings changed from PgQueuer's defaults: none. `run` already sizes the status-log buffer to
the batch (B entries, 0.1 s), which is "claim B, complete B in one statement"; the dequeue
timeout (30 s), heartbeat timeout (30 s), log aggregation (every 30 s), health check (every
10 s) and unlimited concurrency per worker stay as they are. The only change is instrumentation:
`log_jobs`, the statement that completes jobs, is wrapped to count them and note the time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import asyncpg
import uvloop

from pgqueuer import Job, Queries, QueueManager
from pgqueuer.types import QueueExecutionMode

ENTRYPOINT = "noop"


async def main(dsn: str, batch: int) -> dict[str, float]:
    connection = await asyncpg.connect(dsn)
    queries = Queries.from_asyncpg_connection(connection)
    manager = QueueManager(queries)

    @manager.entrypoint(ENTRYPOINT)
    async def noop(job: Job) -> None:
        pass

    done = {"jobs": 0, "end": 0.0}
    log_jobs = queries.log_jobs

    async def counted_log_jobs(job_status):  # type: ignore[no-untyped-def]
        await log_jobs(job_status)
        done["jobs"] += sum(1 for _, status, _ in job_status if status == "successful")
        done["end"] = time.time()

    # The status-log buffer calls `self.repository.log_jobs`: the instance attribute wins.
    queries.log_jobs = counted_log_jobs  # type: ignore[method-assign]

    # `run` checks the schema again; checking here first makes a missing install fail before the
    # clock starts rather than in the middle of a measured run.
    await manager.verify_structure()

    print("ready", flush=True)
    sys.stdin.readline()  # blocking is fine: nothing else runs on this loop yet

    await manager.run(batch_size=batch, mode=QueueExecutionMode.drain)
    await connection.close()
    return done


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dsn", required=True, help="postgresql:// URL for asyncpg")
    parser.add_argument("--batch", type=int, required=True, help="jobs per dequeue (batch_size)")
    args = parser.parse_args()
    result = uvloop.run(main(args.dsn, args.batch))
    print(json.dumps(result), flush=True)
