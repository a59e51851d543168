-- pawl store, schema 2: evidence, the record of one check pawl ran itself.
-- A row is bound to the working-tree hash the check ran on. `tree_after` is set only when the
-- tree changed while the check ran: such evidence proves nothing about either tree and is never
-- reused. `reused_from` points at the row whose result was reused for an unchanged tree.

CREATE TABLE evidence (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id           TEXT REFERENCES runs(id),
    gate             TEXT NOT NULL,
    command          TEXT NOT NULL,
    argv_json        TEXT NOT NULL,
    cwd              TEXT NOT NULL,
    tree_hash        TEXT NOT NULL,
    tree_after       TEXT,
    passed           INTEGER NOT NULL,
    end_kind         TEXT NOT NULL,
    exit_code        INTEGER,
    signal           INTEGER,
    duration_ms      INTEGER NOT NULL,
    test_runner      TEXT,
    tests_passed     INTEGER,
    tests_failed     INTEGER,
    tests_skipped    INTEGER,
    failing_json     TEXT NOT NULL DEFAULT '[]',
    first_failure    TEXT,
    failure_category TEXT,
    output_digest    TEXT,
    tail             TEXT NOT NULL DEFAULT '',
    log_path         TEXT,
    report_path      TEXT,
    reused_from      INTEGER REFERENCES evidence(id),
    created_at       INTEGER NOT NULL
);
CREATE INDEX evidence_cache ON evidence(tree_hash, gate, command, id);
CREATE INDEX evidence_run ON evidence(run_id, gate, id);
