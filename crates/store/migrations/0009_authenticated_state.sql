-- pawl store, schema 9: state an agent cannot forge. Every row that decides something carries an
-- HMAC-SHA-256 (`mac`) over its signed columns, keyed by a secret in the user's pawl state outside
-- the repository (the same key as evidence, schema 8): the run (limits, seal, status, stop
-- reason, phase, active time), its events, iterations, verdicts, criteria, session arming and
-- bindings. The run row also keeps the text it was signed over (`signed`: what a changed field was
-- before) and how many rows pawl wrote for the run per table (`rows_json`: a removed row changes a
-- count). Rows that exist when this migration runs are signed by the pawl that runs it with the
-- key (crates/store/src/mac.rs, `sign_legacy`); a pawl without a key leaves them unsigned, and
-- their runs can then be read but never driven again.

ALTER TABLE runs ADD COLUMN rows_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN signed TEXT;
ALTER TABLE runs ADD COLUMN mac TEXT;
ALTER TABLE events ADD COLUMN mac TEXT;
ALTER TABLE iterations ADD COLUMN mac TEXT;
ALTER TABLE verdicts ADD COLUMN mac TEXT;
ALTER TABLE criteria ADD COLUMN mac TEXT;
ALTER TABLE session_arming ADD COLUMN mac TEXT;
ALTER TABLE session_bindings ADD COLUMN mac TEXT;

-- Which key signs this database (a fingerprint, not the key): a pawl with another key (another
-- HOME or XDG_STATE_HOME) is told so instead of taking every row for forged, and a pawl without
-- a key only reads a signed database, never writes it (an unsigned write would read as forged).
CREATE TABLE store_key (
    fingerprint     TEXT NOT NULL
);
