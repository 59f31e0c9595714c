-- A chunk job that has its answer marks the chunk before it writes the answer, which can wait on
-- the chapter's lock or on a database that is away. Another attempt of the same job (its lease
-- expired meanwhile and it was claimed again) then waits for that write instead of uploading
-- the audio again: the answer is paid for once. The mark lasts the write's retry window and is
-- cleared when the answer is stored.
ALTER TABLE chunks ADD COLUMN answer_held_until timestamptz;
