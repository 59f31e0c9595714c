-- Speech detection (Silero VAD in the worker) and the gates on what the backend answers.
--
-- A chunk the speech detector found no voice in (music, silence, noise longer than a few
-- seconds) is kept in the plan with its times, so the chunks still tile the chapter, and is
-- never sent: `uploaded` false, stored already succeeded with no text and no job.
ALTER TABLE chunks ADD COLUMN uploaded boolean NOT NULL DEFAULT true;
-- Seconds of detected speech in the chunk's audio, beside what was paid for (`usage_seconds`,
-- or the chunk's length when the backend reports no usage). NULL for chunks planned before
-- speech detection.
ALTER TABLE chunks ADD COLUMN speech_seconds double precision CHECK (speech_seconds >= 0);
-- What the gates held back from the chunk's answer, with why: [{"start", "end", "text",
-- "reason"}, ...]. Audited, never silently lost; the merge stores it as flagged segments.
ALTER TABLE chunks ADD COLUMN flagged jsonb;
-- A flagged segment: text the backend wrote where the gates found no speech, an invented
-- phrase or a loop. NULL for the transcript proper. Text exports leave flagged segments out;
-- `steno transcript --format json` shows them with their reason.
ALTER TABLE segments ADD COLUMN flag text;
