-- pawl store, schema 1. Times are milliseconds since the Unix epoch (UTC).

CREATE TABLE runs (
    id              TEXT PRIMARY KEY,
    seq             INTEGER NOT NULL UNIQUE,
    goal            TEXT NOT NULL,
    status          TEXT NOT NULL,
    driver          TEXT NOT NULL,
    mode            TEXT,
    phase           TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    ended_at        INTEGER,
    stop_reason     TEXT,
    settings_json   TEXT NOT NULL,
    branch          TEXT,
    pre_run_commit  TEXT
);

CREATE TABLE spec (
    run_id          TEXT PRIMARY KEY REFERENCES runs(id),
    goal_text       TEXT NOT NULL,
    analysis_json   TEXT
);

CREATE TABLE criteria (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    id              TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    text            TEXT NOT NULL,
    verify_kind     TEXT NOT NULL,
    verify_command  TEXT,
    status          TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (run_id, id)
);

CREATE TABLE stories (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    id              TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    title           TEXT NOT NULL,
    size            TEXT NOT NULL,
    security        INTEGER NOT NULL,
    status          TEXT NOT NULL,
    tdd_phase       TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    max_attempts    INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (run_id, id)
);

CREATE TABLE iterations (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    n               INTEGER NOT NULL,
    story_id        TEXT,
    started_at      INTEGER NOT NULL,
    ended_at        INTEGER,
    prompt          TEXT NOT NULL,
    tokens_in       INTEGER NOT NULL DEFAULT 0,
    tokens_out      INTEGER NOT NULL DEFAULT 0,
    cost_usd        REAL NOT NULL DEFAULT 0,
    cost_estimated  INTEGER NOT NULL DEFAULT 0,
    tool_calls      INTEGER NOT NULL DEFAULT 0,
    files_json      TEXT NOT NULL DEFAULT '[]',
    outcome         TEXT,
    PRIMARY KEY (run_id, n)
);

CREATE TABLE failures (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    story_id        TEXT,
    message         TEXT NOT NULL,
    category        TEXT NOT NULL,
    auto_classified INTEGER NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX failures_run ON failures(run_id, id);

CREATE TABLE blockers (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    id              TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    text            TEXT NOT NULL,
    severity        TEXT NOT NULL,
    status          TEXT NOT NULL,
    instructions    TEXT,
    check_command   TEXT,
    resolution_notes TEXT,
    created_at      INTEGER NOT NULL,
    resolved_at     INTEGER,
    PRIMARY KEY (run_id, id)
);

CREATE TABLE clarifications (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    question        TEXT NOT NULL,
    answer          TEXT NOT NULL,
    phase           TEXT NOT NULL,
    category        TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);

CREATE TABLE notes (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    text            TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);

CREATE TABLE ledger (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    scope           TEXT NOT NULL,
    scope_id        TEXT NOT NULL,
    tokens_in       INTEGER NOT NULL DEFAULT 0,
    tokens_out      INTEGER NOT NULL DEFAULT 0,
    usd             REAL NOT NULL DEFAULT 0,
    usd_estimated   INTEGER NOT NULL DEFAULT 0,
    wall_ms         INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL
);
CREATE INDEX ledger_run ON ledger(run_id, scope, scope_id);

CREATE TABLE events (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT,
    at              INTEGER NOT NULL,
    kind            TEXT NOT NULL,
    data_json       TEXT NOT NULL
);
CREATE INDEX events_run ON events(run_id, seq);

CREATE TABLE leases (
    run_id          TEXT PRIMARY KEY REFERENCES runs(id),
    pid             INTEGER NOT NULL,
    host            TEXT NOT NULL,
    token           TEXT NOT NULL,
    acquired_at     INTEGER NOT NULL,
    heartbeat_at    INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    sessions_json   TEXT NOT NULL DEFAULT '[]'
);
