-- pawl store, schema 5: the phase pipeline. Phases as they ran, every verdict with the session
-- that produced it, plans and their scores, the convergence history, directions that failed
-- (so they are not retried), threshold tuning, and what the plan said about each story and
-- criterion beyond the core tables.

CREATE TABLE phases (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    phase           TEXT NOT NULL,
    -- The plan round (re-plans start a new one).
    round           INTEGER NOT NULL,
    started_at      INTEGER NOT NULL,
    ended_at        INTEGER,
    -- passed | failed | skipped | stopped
    outcome         TEXT,
    note            TEXT
);
CREATE INDEX phases_run ON phases(run_id, id);

CREATE TABLE verdicts (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    phase           TEXT NOT NULL,
    role            TEXT NOT NULL,
    round           INTEGER NOT NULL,
    story_id        TEXT,
    -- The agent session that produced the verdict, and the iteration it ran in.
    session_id      TEXT,
    iteration       INTEGER NOT NULL,
    approve         INTEGER NOT NULL,
    clean           INTEGER NOT NULL,
    architecture_status TEXT,
    findings_json   TEXT NOT NULL,
    output_json     TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX verdicts_run ON verdicts(run_id, id);

CREATE TABLE plans (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    round           INTEGER NOT NULL,
    session_id      TEXT,
    iteration       INTEGER NOT NULL,
    plan_json       TEXT NOT NULL,
    -- planner label -> stored id, for stories and criteria
    ids_json        TEXT NOT NULL DEFAULT '{}',
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (run_id, round)
);

CREATE TABLE plan_scores (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    round           INTEGER NOT NULL,
    -- plan | checkpoint_mid | checkpoint_end
    kind            TEXT NOT NULL,
    task_type       TEXT NOT NULL,
    scores_json     TEXT NOT NULL,
    overall         REAL NOT NULL,
    threshold       REAL NOT NULL,
    passed          INTEGER NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX plan_scores_run ON plan_scores(run_id, id);

CREATE TABLE convergence (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    stage           TEXT NOT NULL,
    round           INTEGER NOT NULL,
    before_share    REAL NOT NULL,
    after_share     REAL NOT NULL,
    verified        INTEGER NOT NULL,
    total           INTEGER NOT NULL,
    -- converged | rising | stalled
    outcome         TEXT NOT NULL,
    checkpoint      TEXT,
    created_at      INTEGER NOT NULL
);
CREATE INDEX convergence_run ON convergence(run_id, id);

CREATE TABLE failed_directions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    stage           TEXT NOT NULL,
    round           INTEGER NOT NULL,
    direction       TEXT NOT NULL,
    reason          TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);

-- Thresholds per task type, tuned from past runs (bounded); the last row wins.
CREATE TABLE threshold_tuning (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    task_type       TEXT NOT NULL,
    before_value    REAL NOT NULL,
    after_value     REAL NOT NULL,
    reason          TEXT NOT NULL,
    run_id          TEXT,
    created_at      INTEGER NOT NULL
);

CREATE TABLE story_plan (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    story_id        TEXT NOT NULL,
    acceptance_json TEXT NOT NULL,
    files_json      TEXT NOT NULL,
    depends_json    TEXT NOT NULL,
    PRIMARY KEY (run_id, story_id)
);

CREATE TABLE criterion_plan (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    criterion_id    TEXT NOT NULL,
    required        INTEGER NOT NULL,
    PRIMARY KEY (run_id, criterion_id)
);
