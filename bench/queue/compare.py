#!/usr/bin/env python3
"""Queue drain: Steno's PostgreSQL job queue against PgQueuer, on one private PostgreSQL cluster.

For each configuration (P drainer processes x batch B), each round drains JOBS no-op jobs once
with Steno (`steno-bench queue-drain --batch B`, P processes) and once with PgQueuer
(bench/queue/pgqueuer_drain.py, P processes), the order alternating from round to round. Each
side has a database of its own in the same cluster (steno_bench, pgq_bench). Before each run
the queue tables are emptied and filled with JOBS jobs, vacuumed and analyzed, and a CHECKPOINT
is taken, so every run starts from the same state (and pays the same full-page writes).
Autovacuum is off in the cluster, so that the tables one run leaves behind are not vacuumed
during the next run, the other side's.

Both drainers follow one contract: print `ready` once connected, wait for a line on stdin,
drain until the queue is empty, print `{"jobs": N, "end": EPOCH}` (EPOCH: when the last job's
completion had returned) and exit. Measured, from the moment every drainer said `ready`:

  jobs/s      JOBS / (latest `end` - the time the go line was written)
  PG CPU      utime + stime of the postmaster and every child process (backends, checkpointer,
              WAL writer, autovacuum...), from /proc, plus the postmaster's cutime + cstime, so
              backends that exited during the run count too
  WAL         pg_wal_lsn_diff of pg_current_wal_lsn() after and before
  statements  sum(calls) in pg_stat_statements of the run's database; every query of this
              script that is taken during a run goes to the `postgres` database instead

The table gives each side's median round, their ratio, and the ratio round by round (each
round's two runs are back to back, so drift of the machine over the minutes of a run, which
moves both sides, cancels there) with its median.

Tenants (`--tenants`, Steno only): each setting of the list drains the same jobs with the
`tenants` table set up another way, in the same round, and a second table gives each one's
jobs/s against `1` (round by round, as above):

  1           one tenant, `default`, holding every job (the claim's own-order path)
  N           N tenants, every job still `default`'s, the other N - 1 idle, as every API key's
              tenant has a row and none is removed (the shared, fair-share claim)
  cap         two tenants: `capped`, with a cap of 1,000 chunk jobs in flight and a tenth of the
              jobs, and `default` with the rest (every claim takes or tries `capped`'s lock)

After each run every job must be done (Steno: all JOBS rows 'succeeded'; PgQueuer: its queue
table empty and JOBS 'successful' rows in its log) and the drainers' N must add up to JOBS,
or the benchmark stops.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

import asyncpg

from pgqueuer import Queries

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PGQ_ENTRYPOINT = "noop"  # the entrypoint pgqueuer_drain.py registers
SYSTEMS = ("steno", "pgqueuer")
DATABASES = {"steno": "steno_bench", "pgqueuer": "pgq_bench"}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Failure(Exception):
    """The benchmark cannot go on: a drainer failed, or not every job was done."""


class Db:
    """One asyncpg connection used synchronously, on the orchestrator's own event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, host: str, port: int, database: str):
        self.loop = loop
        self.conn: asyncpg.Connection = loop.run_until_complete(
            asyncpg.connect(host=host, port=port, user="steno", database=database)
        )

    def value(self, sql: str, *args: object) -> object:
        return self.loop.run_until_complete(self.conn.fetchval(sql, *args))

    def rows(self, sql: str, *args: object) -> list[asyncpg.Record]:
        return self.loop.run_until_complete(self.conn.fetch(sql, *args))

    def execute(self, sql: str, *args: object) -> None:
        self.loop.run_until_complete(self.conn.execute(sql, *args))

    def wait(self, coroutine):  # type: ignore[no-untyped-def]
        return self.loop.run_until_complete(coroutine)

    def close(self) -> None:
        self.loop.run_until_complete(self.conn.close())


# --- PostgreSQL CPU, from /proc -------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def proc_stat(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name (which may hold spaces and parentheses):
    [0] state, [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()
    except (FileNotFoundError, ProcessLookupError):
        return None


def pg_cpu_seconds(postmaster: int) -> tuple[float, float]:
    """User and system CPU time of the cluster so far: the postmaster's own and its reaped
    children's, plus the live children's. A backend moves from the second sum to the first when
    the postmaster reaps it; one that has exited but is not reaped yet is in neither, so callers
    wait for the drainers' backends to be gone first."""
    own = proc_stat(postmaster)
    if own is None:
        raise Failure(f"postmaster {postmaster} is gone")
    user, system = int(own[11]) + int(own[13]), int(own[12]) + int(own[14])
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = proc_stat(int(entry))
        if fields is not None and int(fields[1]) == postmaster:
            user += int(fields[11])
            system += int(fields[12])
    return user / CLOCK_TICKS, system / CLOCK_TICKS


# --- drainer processes ----------------------------------------------------------------------


class Drainer:
    """One drainer process; a thread collects its stdout lines so `ready` can be waited for."""

    def __init__(self, command: list[str], env: dict[str, str], stderr_path: Path):
        self.command = command
        self.stderr_path = stderr_path
        self.stderr = open(stderr_path, "w")
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            env=env, text=True, bufsize=1,
        )
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            line = line.strip()
            self.lines.append(line)
            if line == "ready":
                self.ready.set()
        self.ready.set()  # end of output: whoever waits must look at the process

    def go(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.close()

    def result(self) -> dict[str, float]:
        self.reader.join(timeout=10)
        for line in reversed(self.lines):
            if line.startswith("{"):
                try:
                    value = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(value, dict) and "jobs" in value and "end" in value:
                    return value
        raise Failure(f"{shlex.join(self.command)} printed no result line\n{self.describe()}")

    def describe(self) -> str:
        self.stderr.flush()
        tail = self.stderr_path.read_text(errors="replace").splitlines()[-20:]
        return (f"  exit status {self.process.poll()}\n  stdout: {self.lines[-5:]}\n  stderr (last lines):\n"
                + "\n".join("    " + line for line in tail))

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.stderr.close()


# --- the benchmark --------------------------------------------------------------------------


class Bench:
    def __init__(self, args: argparse.Namespace, work: Path):
        self.args = args
        self.work = work
        self.cluster = work / "pg"
        self.loop = asyncio.new_event_loop()
        self.dbs: dict[str, Db] = {}
        self.drainers: list[Drainer] = []
        self.postmaster = 0

    def libpq(self, database: str) -> str:
        return f"host={self.cluster} port={self.args.port} user=steno dbname={database}"

    def asyncpg_url(self, database: str) -> str:
        query = urllib.parse.urlencode({"host": str(self.cluster), "port": self.args.port})
        return f"postgresql://steno@/{database}?{query}"

    def db(self, name: str) -> Db:
        if name not in self.dbs:
            self.dbs[name] = Db(self.loop, str(self.cluster), self.args.port, name)
        return self.dbs[name]

    # set-up

    def start(self) -> None:
        out = subprocess.run(
            [str(REPO / "scripts/pg-cluster"), "start", str(self.cluster), str(self.args.port)],
            check=True, stdout=subprocess.PIPE, text=True,
        ).stdout.strip()
        log(f"cluster: {out}")
        self.postmaster = int((self.cluster / "data/postmaster.pid").read_text().split()[0])
        postgres = self.db("postgres")
        postgres.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        # Each run vacuums and analyzes its own tables before it starts; autovacuum would only add
        # work the previous run left in the other side's database (PgQueuer's log table, Steno's
        # attempts) to whichever run comes next.
        postgres.execute("ALTER SYSTEM SET autovacuum = off")
        postgres.value("SELECT pg_reload_conf()")
        for database in DATABASES.values():
            if not postgres.value("SELECT count(*) FROM pg_database WHERE datname = $1", database):
                postgres.execute(f'CREATE DATABASE "{database}"')
        if "steno" in self.args.systems:
            env = dict(os.environ, STENO_DATABASE_URL=self.libpq(DATABASES["steno"]))
            subprocess.run(self.args.steno_migrate, env=env, check=True, stdout=subprocess.DEVNULL)
        if "pgqueuer" in self.args.systems:
            pgq = self.db(DATABASES["pgqueuer"])
            queries = Queries.from_asyncpg_connection(pgq.conn)
            if not pgq.wait(queries.schema_is_installed()):
                pgq.wait(queries.install())

    def stop(self) -> None:
        for drainer in self.drainers:
            drainer.kill()
        for db in self.dbs.values():
            try:
                db.close()
            except Exception:
                pass
        subprocess.run([str(REPO / "scripts/pg-cluster"), "stop", str(self.cluster)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.loop.close()

    # one run

    def fill(self, system: str, jobs: int, tenants: str = "1") -> None:
        db = self.db(DATABASES[system])
        if system == "steno":
            # The queue and its attempts; media, chapters and chunks stay empty in this benchmark.
            db.execute("TRUNCATE jobs, job_attempts CASCADE")
            db.execute("DELETE FROM tenants WHERE name <> 'default'")
            capped = 0
            if tenants == "cap":
                db.execute("INSERT INTO tenants (name, max_in_flight) VALUES ('capped', 1000)")
                capped = jobs // 10
                db.execute("INSERT INTO jobs (kind, tenant) SELECT 'chunk', 'capped' FROM generate_series(1, $1)", capped)
            elif int(tenants) > 1:
                db.execute("INSERT INTO tenants (name) SELECT 'idle-' || n FROM generate_series(2, $1) AS n", int(tenants))
            db.execute("INSERT INTO jobs (kind) SELECT 'chunk' FROM generate_series(1, $1)", jobs - capped)
            db.execute("VACUUM ANALYZE jobs, job_attempts, tenants")
        else:
            db.execute("TRUNCATE pgqueuer, pgqueuer_log, pgqueuer_statistics")
            # PgQueuer's own enqueue, in batches: one statement inserts the jobs and logs them
            # as 'queued', as an application enqueueing them would.
            queries = Queries.from_asyncpg_connection(db.conn)
            step = 10_000
            for first in range(0, jobs, step):
                n = min(step, jobs - first)
                db.wait(queries.enqueue([PGQ_ENTRYPOINT] * n, [None] * n, [0] * n))
            db.execute("VACUUM ANALYZE pgqueuer, pgqueuer_log, pgqueuer_statistics")
        self.db("postgres").execute("CHECKPOINT")

    def drainer_command(self, system: str, batch: int) -> tuple[list[str], dict[str, str]]:
        if system == "steno":
            env = dict(os.environ, STENO_DATABASE_URL=self.libpq(DATABASES["steno"]))
            return self.args.steno_drain + ["--batch", str(batch)], env
        command = [sys.executable, str(HERE / "pgqueuer_drain.py"),
                   "--dsn", self.asyncpg_url(DATABASES["pgqueuer"]), "--batch", str(batch)]
        return command, dict(os.environ)

    def run(self, system: str, processes: int, batch: int, round_number: int, tenants: str = "1") -> dict[str, object]:
        jobs = self.args.jobs
        database = DATABASES[system]
        self.fill(system, jobs, tenants)
        postgres = self.db("postgres")
        own_backend = self.db(database).conn.get_server_pid()  # idle during the run

        command, env = self.drainer_command(system, batch)
        self.drainers = [
            Drainer(command, env, self.work / f"{system}-p{processes}-b{batch}-r{round_number}-{n}.log")
            for n in range(processes)
        ]
        deadline = time.monotonic() + 60
        for drainer in self.drainers:
            drainer.ready.wait(timeout=max(0.0, deadline - time.monotonic()))
            if "ready" not in drainer.lines:
                raise Failure(f"{system} drainer not ready within 60 s: {shlex.join(command)}\n{drainer.describe()}")

        background_before = self.background()
        # From here on: the drainers have connected and set up, and nothing else uses the run's
        # database until they are done.
        postgres.value("SELECT pg_stat_statements_reset()")
        lsn_before = postgres.value("SELECT pg_current_wal_lsn()::text")
        cpu_before = pg_cpu_seconds(self.postmaster)
        t0 = time.time()
        for drainer in self.drainers:
            drainer.go()

        deadline = time.monotonic() + self.args.timeout
        for drainer in self.drainers:
            try:
                drainer.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise Failure(f"{system} drainers still running after {self.args.timeout} s "
                              f"(processes {processes}, batch {batch})\n{drainer.describe()}") from None
        for drainer in self.drainers:
            if drainer.process.returncode != 0:
                raise Failure(f"{system} drainer failed: {shlex.join(command)}\n{drainer.describe()}")
        results = [drainer.result() for drainer in self.drainers]

        # The drainers' backends must be gone and reaped before the CPU is read (see pg_cpu_seconds).
        wait_until = time.monotonic() + 10
        while postgres.value("SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> $2",
                             database, own_backend) and time.monotonic() < wait_until:
            time.sleep(0.02)
        time.sleep(0.1)
        cpu_after = pg_cpu_seconds(self.postmaster)
        cpu_user, cpu_system = cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1]
        cpu = cpu_user + cpu_system
        wal = int(postgres.value("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::text::pg_lsn)", lsn_before))
        dbid = postgres.value("SELECT oid FROM pg_database WHERE datname = $1", database)
        statements = int(postgres.value(
            "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE dbid = $1", dbid))
        top = [dict(calls=r["calls"], rows=r["rows"], query=" ".join(r["query"].split())[:200])
               for r in postgres.rows("SELECT calls, rows, query FROM pg_stat_statements WHERE dbid = $1 "
                                      "ORDER BY calls DESC LIMIT 12", dbid)]
        background = {k: v - background_before[k] for k, v in self.background().items()}

        self.check_done(system, jobs, results)
        for drainer in self.drainers:
            drainer.kill()
        self.drainers = []

        wall = max(r["end"] for r in results if r["jobs"] > 0) - t0
        run = dict(
            system=system, processes=processes, batch=batch, round=round_number, jobs=jobs, tenants=tenants,
            wall_seconds=wall, jobs_per_second=jobs / wall, pg_cpu_seconds=cpu,
            pg_cpu_user_seconds=cpu_user, pg_cpu_system_seconds=cpu_system,
            cpu_us_per_job=cpu * 1e6 / jobs, wal_bytes=wal, wal_bytes_per_job=wal / jobs,
            statements=statements, statements_per_job=statements / jobs,
            jobs_per_process=[int(r["jobs"]) for r in results], top_statements=top, **background,
        )
        system_share = cpu_system / cpu if cpu else 0.0
        setup = f" tenants={tenants}" if tenants != "1" else ""
        log(f"p={processes} b={batch} round {round_number} {system:8}{setup}: {run['jobs_per_second']:9.0f} jobs/s "
            f"(wall {wall:.2f} s), PG CPU {cpu:.2f} s ({run['cpu_us_per_job']:.0f} us/job, "
            f"{system_share:.0%} in the kernel), "
            f"WAL {wal / 1e6:.1f} MB ({run['wal_bytes_per_job']:.0f} B/job), "
            f"{statements} statements ({run['statements_per_job']:.3f}/job), per process {run['jobs_per_process']}, "
            f"checkpoints {background['checkpoints']}, autovacuums {background['autovacuums']}")
        return run

    def background(self) -> dict[str, int]:
        """Counters of PostgreSQL's own work that a run may meet (and whose CPU and WAL it pays):
        checkpoints, and autovacuum or autoanalyze visits of either side's tables (none expected:
        autovacuum is off)."""
        checkpoints = self.db("postgres").value("SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter")
        autovacuums = sum(int(self.db(name).value(
            "SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) FROM pg_stat_user_tables"))
            for name in (DATABASES[system] for system in self.args.systems))
        return dict(checkpoints=int(checkpoints), autovacuums=autovacuums)

    def check_done(self, system: str, jobs: int, results: list[dict[str, float]]) -> None:
        db = self.db(DATABASES[system])
        reported = sum(int(r["jobs"]) for r in results)
        if system == "steno":
            succeeded, total = db.rows("SELECT count(*) FILTER (WHERE state = 'succeeded'), count(*) FROM jobs")[0]
            problem = None if succeeded == jobs == total else f"{succeeded} of {total} jobs succeeded"
        else:
            left = db.value("SELECT count(*) FROM pgqueuer")
            logged = db.value("SELECT count(*) FROM pgqueuer_log WHERE status = 'successful'")
            problem = None if left == 0 and logged == jobs else \
                f"{left} jobs left in the queue table, {logged} logged 'successful'"
        if problem is None and reported != jobs:
            problem = f"the drainers report {reported} jobs"
        if problem is not None:
            raise Failure(f"{system}: not every job was done: {problem}, expected {jobs}")


# --- report ---------------------------------------------------------------------------------


def median_of(runs: list[dict[str, object]], system: str, processes: int, batch: int, key: str,
              tenants: str = "1") -> float | None:
    values = [float(r[key]) for r in runs
              if r["system"] == system and r["processes"] == processes and r["batch"] == batch
              and r.get("tenants", "1") == tenants]
    return statistics.median(values) if values else None


def paired_ratios(runs: list[dict[str, object]], processes: int, batch: int) -> list[float]:
    """Steno's jobs/s over PgQueuer's, round by round: the two runs of a round are back to back,
    so a machine that drifts (another tenant, the clock of a virtual CPU) moves both alike."""
    rates: dict[tuple[str, int], float] = {
        (str(r["system"]), int(r["round"])): float(r["jobs_per_second"]) for r in runs
        if r["processes"] == processes and r["batch"] == batch and r.get("tenants", "1") == "1"}
    rounds = sorted({n for _, n in rates})
    return [rates["steno", n] / rates["pgqueuer", n] for n in rounds
            if ("steno", n) in rates and ("pgqueuer", n) in rates]


def table(runs: list[dict[str, object]], configs: list[tuple[int, int]], rounds: int, jobs: int) -> str:
    def fmt(value: float | None, digits: int) -> str:
        return "-" if value is None else f"{value:,.{digits}f}"

    lines = [
        f"{jobs} no-op jobs per run, median of {rounds} round{'s' if rounds != 1 else ''}",
        "",
        "| processes | batch | Steno jobs/s | PgQueuer jobs/s | Steno / PgQueuer | per round "
        "| PG CPU µs/job Steno | PG CPU µs/job PgQueuer | WAL B/job Steno | WAL B/job PgQueuer "
        "| statements/job Steno | statements/job PgQueuer |",
        "|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for processes, batch in configs:
        m = {(s, k): median_of(runs, s, processes, batch, k) for s in SYSTEMS
             for k in ("jobs_per_second", "cpu_us_per_job", "wal_bytes_per_job", "statements_per_job")}
        steno, pgq = m["steno", "jobs_per_second"], m["pgqueuer", "jobs_per_second"]
        ratio = steno / pgq if steno and pgq else None
        paired = paired_ratios(runs, processes, batch)
        per_round = ", ".join(f"{r:.2f}" for r in paired) or "-"
        if len(paired) > 1:
            per_round += f" (median {statistics.median(paired):.2f})"
        lines.append(
            f"| {processes} | {batch} | {fmt(steno, 0)} | {fmt(pgq, 0)} | {fmt(ratio, 2)} | {per_round} "
            f"| {fmt(m['steno', 'cpu_us_per_job'], 0)} | {fmt(m['pgqueuer', 'cpu_us_per_job'], 0)} "
            f"| {fmt(m['steno', 'wal_bytes_per_job'], 0)} | {fmt(m['pgqueuer', 'wal_bytes_per_job'], 0)} "
            f"| {fmt(m['steno', 'statements_per_job'], 3)} | {fmt(m['pgqueuer', 'statements_per_job'], 3)} |"
        )
    return "\n".join(lines)


def tenants_table(runs: list[dict[str, object]], configs: list[tuple[int, int]], settings: list[str]) -> str:
    """Steno's jobs/s for each tenants setting against one tenant's, median and round by round."""
    lines = [
        "Steno by tenants (jobs/s; against one tenant, round by round)",
        "",
        "| processes | batch | tenants | Steno jobs/s | against 1 | per round |",
        "|---:|---:|---|---:|---:|---|",
    ]
    for processes, batch in configs:
        def rate(setting: str, round_number: int) -> float | None:
            for r in runs:
                if (r["system"] == "steno" and r["processes"] == processes and r["batch"] == batch
                        and r["round"] == round_number and r.get("tenants", "1") == setting):
                    return float(r["jobs_per_second"])
            return None
        rounds = sorted({int(r["round"]) for r in runs if r["system"] == "steno"})
        for setting in settings:
            median = median_of(runs, "steno", processes, batch, "jobs_per_second", setting)
            one = median_of(runs, "steno", processes, batch, "jobs_per_second", "1")
            paired = [a / b for a, b in ((rate(setting, n), rate("1", n)) for n in rounds) if a and b]
            per_round = ", ".join(f"{r:.2f}" for r in paired) or "-"
            if len(paired) > 1:
                per_round += f" (median {statistics.median(paired):.2f})"
            against = f"{median / one:.2f}" if median and one else "-"
            lines.append(f"| {processes} | {batch} | {setting} | {median:,.0f} | {against} | {per_round} |"
                         if median else f"| {processes} | {batch} | {setting} | - | - | - |")
    return "\n".join(lines)


def tenant_settings(text: str) -> list[str]:
    settings = [x for x in text.split(",") if x]
    for x in settings:
        if x != "cap" and not (x.isdigit() and int(x) >= 1):
            raise argparse.ArgumentTypeError(f"{x!r}: a number of tenants (1 or more) or 'cap'")
    if "1" not in settings:
        settings.insert(0, "1")  # the reference the others are measured against
    return settings


# --- command line ---------------------------------------------------------------------------


def int_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Queue drain throughput and PostgreSQL cost: Steno against PgQueuer.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--processes", type=int_list, default=[1, 2, 4], help="drainer processes, comma separated")
    parser.add_argument("--batches", type=int_list, default=[1, 10], help="batch sizes, comma separated")
    parser.add_argument("--jobs", type=int, default=50_000, help="jobs per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side per configuration")
    parser.add_argument("--systems", default="steno,pgqueuer", help="steno, pgqueuer or both")
    parser.add_argument("--tenants", type=tenant_settings, default=["1"],
                        help="Steno's tenants settings, comma separated: numbers of tenants, and 'cap' (see above); "
                             "1 is always run, as the reference")
    parser.add_argument("--json", type=Path, help="write every run's raw figures to this file")
    parser.add_argument("--bin", default=os.environ.get("STENO_BIN"),
                        help="folder of the release steno (default: $STENO_BIN, "
                             "else `swift build -c release --show-bin-path`)")
    parser.add_argument("--bench-bin", default=os.environ.get("STENO_BENCH_BIN_DIR"),
                        help="folder of the release steno-bench, built from the bench package (default: "
                             "$STENO_BENCH_BIN_DIR, else `swift build -c release --package-path bench --show-bin-path`)")
    parser.add_argument("--steno-drain", default=os.environ.get("STENO_QUEUE_DRAIN_CMD"),
                        help="Steno drainer command, `--batch B` appended (default: $STENO_QUEUE_DRAIN_CMD, "
                             "else BENCH_BIN/steno-bench queue-drain)")
    parser.add_argument("--steno-migrate", default=os.environ.get("STENO_MIGRATE_CMD"),
                        help="command that migrates $STENO_DATABASE_URL (default: $STENO_MIGRATE_CMD, "
                             "else BIN/steno migrate)")
    parser.add_argument("--port", type=int, default=54336, help="port of the private cluster (its socket's name)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a run may take")
    args = parser.parse_args()
    args.systems = [s for s in args.systems.split(",") if s]
    if not args.systems or any(s not in SYSTEMS for s in args.systems):
        parser.error("--systems: steno, pgqueuer or steno,pgqueuer")

    if "steno" in args.systems and args.steno_migrate is None and args.bin is None:
        args.bin = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=REPO,
                                  check=True, capture_output=True, text=True).stdout.strip()
    if "steno" in args.systems and args.steno_drain is None and args.bench_bin is None:
        args.bench_bin = subprocess.run(["swift", "build", "-c", "release", "--package-path", "bench", "--show-bin-path"],
                                        cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()
    args.steno_drain = shlex.split(args.steno_drain) if args.steno_drain else \
        [str(Path(args.bench_bin or "") / "steno-bench"), "queue-drain"]
    args.steno_migrate = shlex.split(args.steno_migrate) if args.steno_migrate else \
        [str(Path(args.bin or "") / "steno"), "migrate"]

    configs = [(p, b) for p in args.processes for b in args.batches]
    log(f"queue drain: {args.jobs} jobs, {args.rounds} rounds, configs {configs}; "
        f"steno: {shlex.join(args.steno_drain)}; pgqueuer {importlib.metadata.version('pgqueuer')}, "
        f"asyncpg {importlib.metadata.version('asyncpg')}, uvloop {importlib.metadata.version('uvloop')}")

    # A TERM (a stopped CI job, a kill) unwinds like Ctrl-C, so the cluster is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    work = Path(tempfile.mkdtemp(prefix="steno-bench-queue."))
    work.chmod(0o755)  # as root, the cluster runs as the postgres user, who must reach it
    bench = Bench(args, work)
    runs: list[dict[str, object]] = []
    failed = False
    try:
        bench.start()
        for processes, batch in configs:
            for round_number in range(1, args.rounds + 1):
                sides = [(system, "1") for system in args.systems]
                if "steno" in args.systems:
                    sides += [("steno", setting) for setting in args.tenants if setting != "1"]
                order = sides if round_number % 2 == 1 else list(reversed(sides))
                for system, setting in order:
                    runs.append(bench.run(system, processes, batch, round_number, setting))
    except (Failure, subprocess.CalledProcessError) as e:
        log(f"FAILED: {e}")
        failed = True
    finally:
        bench.stop()
        shutil.rmtree(work, ignore_errors=True)

    if args.json:
        args.json.write_text(json.dumps(dict(
            jobs=args.jobs, rounds=args.rounds, configs=configs, tenants=args.tenants, failed=failed,
            steno_drain=args.steno_drain,
            versions={p: importlib.metadata.version(p) for p in ("pgqueuer", "asyncpg", "uvloop")},
            runs=runs,
        ), indent=2) + "\n")
    if runs:
        print(table(runs, configs, args.rounds, args.jobs))
        if len(args.tenants) > 1 and "steno" in args.systems:
            print()
            print(tenants_table(runs, configs, args.tenants))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
