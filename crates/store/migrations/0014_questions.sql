-- pawl store, schema 14: a run's clarifying questions, kept from the moment they are asked until
-- they are answered, so that any front end can answer them (the terminal that started the run,
-- the dashboard later). The first answer given wins; one taken without anybody answering (the
-- recommendation after silence) is `assumed`. Not signed: an answer is the user's input, and
-- what the agent sees of it is the note the spec gate writes.
CREATE TABLE questions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          TEXT NOT NULL REFERENCES runs(id),
    question        TEXT NOT NULL,
    recommended     TEXT NOT NULL,
    category        TEXT,
    asked_at        INTEGER NOT NULL,
    answer          TEXT,
    assumed         INTEGER,
    answered_by     TEXT,
    answered_at     INTEGER
);

CREATE INDEX questions_run ON questions (run_id, id);
