-- A worker's heartbeat also tells it whether anything is due: claimable jobs (by kind, since
-- chunk jobs wait while their backend is down), expired leases to take back, and completion
-- notices to deliver. An idle worker then sends its heartbeat and nothing else; these partial
-- indexes keep each of those checks to the first matching row.
CREATE INDEX jobs_due_idx ON jobs (kind, run_at) WHERE state = 'queued';
-- Finished media not yet notified: all of them when a worker has a default webhook URL, else
-- only those with a webhook of their own (media without one stay unnotified for good).
CREATE INDEX media_notice_due_idx ON media (id) WHERE notified_at IS NULL AND state IN ('succeeded', 'failed');
CREATE INDEX media_own_webhook_due_idx ON media (id)
    WHERE notified_at IS NULL AND webhook_url IS NOT NULL AND state IN ('succeeded', 'failed');
