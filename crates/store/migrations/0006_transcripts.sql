-- pawl store, schema 6: where the in-session driver last read each session's transcript
-- (a JSON cursor: path, byte offset, last message counted, cumulative usage, model), so that
-- every Stop charges the tokens and estimated dollars of its own turn, once.

ALTER TABLE session_bindings ADD COLUMN transcript_cursor TEXT;
