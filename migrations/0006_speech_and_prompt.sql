-- Where each chunk's audio holds speech, as [[start, end], ...] in seconds on the media's clock,
-- measured when the chapter is planned: the merge lays the words of a backend that answers
-- without times over these regions. NULL for chunks planned before this migration.
ALTER TABLE chunks ADD COLUMN speech jsonb;

-- Names and vocabulary sent with every chunk of the media as the backend's `prompt`.
ALTER TABLE media ADD COLUMN prompt text CHECK (prompt IS NULL OR length(prompt) <= 2000);
