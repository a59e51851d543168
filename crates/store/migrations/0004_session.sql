-- pawl store, schema 4: the in-session driver. A run armed for an interactive agent session,
-- the sessions bound to it, and the file edits made since the session's last Stop (thrash).

CREATE TABLE session_arming (
    run_id          TEXT PRIMARY KEY REFERENCES runs(id),
    agent           TEXT,
    armed_at        INTEGER NOT NULL,
    -- An armed run that no session takes by then expires.
    expires_at      INTEGER NOT NULL,
    -- The tree when the run was armed: progress of the first Stop is measured against it.
    baseline_tree   TEXT,
    -- The settings entries pawl merged for --autonomous, removed again on `pawl off` or the end.
    autonomous_json TEXT NOT NULL DEFAULT '[]',
    -- When the current turn of agent work began (arming, binding, or the last blocked Stop).
    turn_started_at INTEGER NOT NULL,
    ended_at        INTEGER,
    end_why         TEXT
);

CREATE TABLE session_bindings (
    session_id      TEXT PRIMARY KEY,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    agent           TEXT NOT NULL,
    bound_at        INTEGER NOT NULL,
    last_seen_at    INTEGER NOT NULL
);
CREATE INDEX session_bindings_run ON session_bindings(run_id);

CREATE TABLE session_edits (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    path            TEXT NOT NULL,
    count           INTEGER NOT NULL,
    PRIMARY KEY (run_id, path)
);
