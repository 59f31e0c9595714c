-- Speakers from segmentation windows, and final numbers once a media is done (docs/speakers.md).
-- A chapter's merge now finds its own groups of voices (chapter-local, numbered 0, 1, ... by first
-- appearance: they depend on the chapter's audio alone) and gives each a provisional speaker
-- number for the reader while the media is in progress; when the media is done, its final
-- speakers are the groups of all chapters joined by voice and numbered by first appearance in
-- the recording, whatever order the chapters merged in. `chapter_voices` therefore holds one row
-- per group, and a segment remembers its group, so the final numbers can be written over the
-- provisional ones. Nothing is renumbered here: media done before this migration keep the
-- numbers they have, and every transcript exports as it did.

-- One row per group of a chapter. Rows written before hold one per speaker: their group is the
-- speaker's number (a row per chapter and speaker: a small table, rewritten once).
ALTER TABLE chapter_voices
    ADD COLUMN grp integer,
    -- Where the group is first heard, on the media's clock (NULL for rows written before: their
    -- chapter's turns give it when the media is numbered again).
    ADD COLUMN first_seconds float8;
UPDATE chapter_voices SET grp = speaker;
ALTER TABLE chapter_voices ALTER COLUMN grp SET NOT NULL;
ALTER TABLE chapter_voices DROP CONSTRAINT chapter_voices_pkey;
ALTER TABLE chapter_voices ADD PRIMARY KEY (chapter_id, grp);
-- The final numbering replaces a media's speakers as a whole; a group's row follows it by number
-- in the same transaction, and goes with its chapter (or its media) as before.
ALTER TABLE chapter_voices DROP CONSTRAINT chapter_voices_media_id_speaker_fkey;

-- The chapter-local group a segment's words were labelled with (NULL before: the segment's
-- speaker number, which was its group then).
ALTER TABLE segments ADD COLUMN speaker_group integer;

-- The final numbering moves a profile's record of a speaker of this media to the speaker's final
-- number (the one that took the name), and drops a record that would then repeat another.
GRANT UPDATE (speaker), DELETE ON voice_profile_sources TO steno_worker;
