-- pawl store, schema 10: a store shared by a fleet of runs (PostgreSQL; docs/fleet.md).
-- Which clone started a run (`host:path`): "one active run per repository" holds per clone, so
-- many clones of one origin run at once against one store. The fleet a run belongs to (its
-- budget, its totals), if any. Neither is signed: they scope views and the budget, and the
-- fleet's own counters are what a budget decides on.
ALTER TABLE runs ADD COLUMN clone TEXT;
ALTER TABLE runs ADD COLUMN fleet TEXT;
CREATE INDEX runs_clone ON runs(clone, seq);
CREATE INDEX runs_fleet ON runs(fleet, seq);

-- A fleet's budget: caps on dollars (micro-dollars, exact integers) and tokens for all its runs,
-- what one agent step holds while it is in flight, and the running totals (held by steps in
-- flight, spent by settled ones), changed only inside the store's write lock.
CREATE TABLE fleets (
    id              TEXT PRIMARY KEY,
    max_micro_usd   INTEGER,
    max_tokens      INTEGER,
    step_micro_usd  INTEGER NOT NULL,
    step_tokens     INTEGER NOT NULL,
    held_micro_usd  INTEGER NOT NULL DEFAULT 0,
    held_tokens     INTEGER NOT NULL DEFAULT 0,
    spent_micro_usd INTEGER NOT NULL DEFAULT 0,
    spent_tokens    INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

-- One agent step's hold on its fleet's budget: taken with the iteration, settled with what the
-- step spent (or, for a step cut off by a crash before its spend was known, with the hold).
CREATE TABLE fleet_holds (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    fleet           TEXT NOT NULL REFERENCES fleets(id),
    run_id          TEXT NOT NULL REFERENCES runs(id),
    n               INTEGER NOT NULL,
    held_micro_usd  INTEGER NOT NULL,
    held_tokens     INTEGER NOT NULL,
    spent_micro_usd INTEGER,
    spent_tokens    INTEGER,
    created_at      INTEGER NOT NULL,
    settled_at      INTEGER,
    UNIQUE (run_id, n)
);
CREATE INDEX fleet_holds_fleet ON fleet_holds(fleet, settled_at);
