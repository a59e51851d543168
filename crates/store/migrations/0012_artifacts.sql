-- pawl store, schema 12: what a run leaves that only its clone holds, kept in the store when the
-- run stops — its final report (with the files it changed and where its transcripts are) and the
-- diff of its branch against its pre-run commit, bounded in size — so that a run whose clone is
-- gone (a fleet job's, on another machine) can still be reviewed from the store (`pawl serve`).
-- One row per (run, name), replaced when the run stops again; signed (`mac`), and each
-- publication is also a `published` event naming the artifacts' sizes and digests.

CREATE TABLE artifacts (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    -- report | diff
    name            TEXT NOT NULL,
    -- The artifact (JSON), cut to its bound when `truncated` is 1.
    body            TEXT NOT NULL,
    -- The size of the whole artifact before any cut, in bytes.
    bytes           INTEGER NOT NULL,
    truncated       INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    mac             TEXT,
    PRIMARY KEY (run_id, name)
);
