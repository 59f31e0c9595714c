-- A voice profile is the sum of the voices it was named from (docs/speakers.md, "Named
-- speakers"). Naming a speaker after a profile that exists adds that speaker's voice to it,
-- where it used to replace the profile's voice with the last one named.
--
-- Each speaker named into a profile is one source: one row per (profile, media, speaker), so
-- that naming the same speaker again replaces its own share instead of counting it twice, and
-- naming that speaker something else takes its share out of the profile it left.
-- `voice_profiles.embedding` and `pieces` stay the sum of the profile's sources of its model,
-- written in the same transaction as the sources, so that matching reads one row a profile.
--
-- Every profile before this migration was measured by Resemblyzer's GE2E encoder (256 values),
-- which today's CAM++ voices (192 values) cannot be compared with. Nothing is dropped: each
-- profile keeps its name and its voice, recorded as its first source with model 'ge2e', and is
-- marked 'ge2e' so that matching passes it over. The next time its name is given to a speaker,
-- that CAM++ voice becomes the profile's voice; the GE2E source stays for the record and is no
-- longer summed. Constant defaults: no table is rewritten.

-- The encoder that measured the profile's voice ('campplus', 'ge2e'); only voices of the
-- worker's own encoder are matched.
ALTER TABLE voice_profiles ADD COLUMN model text NOT NULL DEFAULT 'ge2e';
ALTER TABLE voice_profiles ALTER COLUMN model SET DEFAULT 'campplus';

CREATE TABLE voice_profile_sources (
    id          bigserial PRIMARY KEY,
    profile_id  bigint NOT NULL REFERENCES voice_profiles (id) ON DELETE CASCADE,
    -- The media and speaker the name was given to. No foreign key: a profile keeps what it
    -- learnt when the media is deleted, as it did before. NULL only for a source this migration
    -- recorded from a profile whose media or speaker it cannot tell.
    media_id    bigint,
    speaker     integer,
    -- The sum of the speaker's embeddings over the media's chapters when it was named.
    embedding   real[] NOT NULL,
    pieces      integer NOT NULL,
    model       text NOT NULL DEFAULT 'campplus',
    named_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (profile_id, media_id, speaker)
);
-- A speaker's sources in every profile: what a rename takes out of the profile it leaves.
CREATE INDEX voice_profile_sources_speaker_idx ON voice_profile_sources (media_id, speaker);

-- Each tenant profile's voice so far, as its first source: the speaker of the media it was named
-- in who bears its name (none when that speaker was renamed since, or the media deleted).
-- Profiles a transcription request brought (`for_media`) are not named from a speaker.
INSERT INTO voice_profile_sources (profile_id, media_id, speaker, embedding, pieces, model, named_at)
SELECT p.id, p.named_in,
       (SELECT min(s.number) FROM speakers s WHERE s.media_id = p.named_in AND s.name = p.name AND s.profile_id IS NULL),
       p.embedding, p.pieces, 'ge2e', p.updated_at
FROM voice_profiles p
WHERE p.for_media IS NULL;

GRANT SELECT ON voice_profile_sources TO steno_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON voice_profile_sources TO steno_admin, steno_api;
GRANT USAGE ON SEQUENCE voice_profile_sources_id_seq TO steno_admin, steno_api;
