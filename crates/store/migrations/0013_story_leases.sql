-- pawl store, schema 13: a lease per story of a plan run in parallel, and the stories' rows
-- signed like the other state that decides something.
--
-- A story being worked on is owned by one worker: its lease names the worker's process and host
-- (host-qualified, as the run's lease), is renewed by the worker's heartbeat and expires. It is
-- taken in the same transaction that starts the story and released in the one that records
-- how its session ended, so a story held by a live worker (of another coordinator: a resumed run
-- while an old worker still lives) is never started twice, and one whose worker died (kill -9)
-- is taken over. Not signed: like the run's lease, it decides who works, not what was done.
CREATE TABLE story_leases (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    story           TEXT NOT NULL,
    pid             INTEGER NOT NULL,
    host            TEXT NOT NULL,
    token           TEXT NOT NULL,
    acquired_at     INTEGER NOT NULL,
    heartbeat_at    INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    PRIMARY KEY (run_id, story)
);

-- The code of each `story_work` row (HMAC-SHA-256 over every column of migration 11,
-- crates/store/src/mac.rs): a story marked merged, its criteria changed or a row added outside
-- pawl is found, and the run stops `tampered`. Rows that exist when this migration runs are
-- signed by the pawl that runs it with the key, and counted in their run's row.
ALTER TABLE story_work ADD COLUMN mac TEXT;
