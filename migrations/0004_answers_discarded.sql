-- A transcription the backend returned (and a paid backend charged for) that Steno could not
-- keep, by reason: 'already_answered' (another attempt's answer for the same chunk was stored
-- first), 'chunk_ended' (the chunk was cancelled, split or failed meanwhile) or 'database' (the write
-- still failed after retrying it with the answer held in memory). NULL when the attempt's answer
-- was kept or when it got none. Answers kept although the attempt had lost its lease are not
-- discarded: the first answer for a chunk wins, whichever attempt brought it.
ALTER TABLE job_attempts ADD COLUMN answer_discarded text
    CHECK (answer_discarded IN ('already_answered', 'chunk_ended', 'database'));
