-- pawl store, schema 8: sealed evidence. Every test's outcome by id (the baseline and the
-- test-protection screen compare them), and the fingerprint of the sealed check that produced
-- the evidence (command, environment, room): evidence is reused only for the same tree and the
-- same seal. And an authentication code over each record, keyed by a secret in the user's pawl
-- state outside the repository: evidence pawl did not write itself is never reused.

ALTER TABLE evidence ADD COLUMN outcomes_json TEXT;
ALTER TABLE evidence ADD COLUMN seal TEXT;
ALTER TABLE evidence ADD COLUMN mac TEXT;
