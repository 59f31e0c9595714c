-- An export reads a chapter's segments in batches, each a statement of its own, so that no
-- transaction stays open while a slow client takes the output. A chapter merged again between
-- two batches (`steno retry` of a chapter that failed after a first merge) would be read half
-- before and half after. Each merge now counts itself on the chapter's row in the transaction
-- that replaces the segments, and every batch reads the count beside its rows: an export that
-- sees it change stops with an error instead of writing a mix of two transcripts.
-- A constant default: the column is added without rewriting the table.
ALTER TABLE chapters ADD COLUMN merges integer NOT NULL DEFAULT 0;
