-- A job is blamed for its worker's death only on evidence (docs/architecture.md, "Deaths and
-- blame").
--
-- `steno-worker` runs its work in a child process and supervises it: the parent sees how the
-- child ended (a crash signal such as SIGSEGV, or SIGKILL from outside) and takes the child's
-- jobs back itself with that evidence. The parent's own database session holds an advisory
-- lock of the supervisors' namespace (classid 1400137075, "Stes") on `supervisor_key`; while
-- that lock is held, the rest of the fleet leaves a dead child's jobs to its supervisor.
-- NULL for a worker that runs unsupervised (`STENO_WORKER_SUPERVISE=off`, older releases).
ALTER TABLE workers ADD COLUMN supervisor_key integer;
-- How the worker's process last ended, as its supervisor saw it: 'SIGSEGV', 'SIGKILL', 'exit 3'.
ALTER TABLE workers ADD COLUMN exit text;

-- How the worker's process ended when an attempt was taken back because it died: the signal
-- or exit status its supervisor saw, NULL when nobody saw it (the whole process tree died, or
-- a worker of an older release). `crashed` marks the ends that are evidence against the job:
-- a crash signal of the process itself, not a kill from outside nor an exit it chose.
ALTER TABLE job_attempts ADD COLUMN worker_exit text;
ALTER TABLE job_attempts ADD COLUMN crashed boolean NOT NULL DEFAULT false;
