-- A recording in the object store is checked on every read against what was stored: its size
-- and the store's entity tag (`SourceObject`). Steno's own uploads also keep the SHA-256 of the
-- bytes it sent. NULL for a recording on a path or a URL, and for media enqueued before this
-- release (read as before, unchecked).
ALTER TABLE media
    ADD COLUMN source_bytes bigint CHECK (source_bytes >= 0),
    ADD COLUMN source_etag text CHECK (source_etag <> ''),
    ADD COLUMN source_sha256 text CHECK (source_sha256 ~ '^[0-9a-f]{64}$'),
    ADD CONSTRAINT media_source_object_check CHECK (source_bytes IS NOT NULL OR (source_etag IS NULL AND source_sha256 IS NULL));
