-- Exports name a media's language where the format has a place for it (docs/architecture.md,
-- "Languages"): a `Language:` line in the WebVTT header, `language` in the podcast:transcript
-- JSON (the JSON export has named it since before). Only for media enqueued from this migration
-- on: the exports of the media already there stay byte for byte as they were, a header line
-- included, whatever their language.
ALTER TABLE media ADD COLUMN captions_name_language boolean NOT NULL DEFAULT false;
ALTER TABLE media ALTER COLUMN captions_name_language SET DEFAULT true;
