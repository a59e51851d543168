-- pawl store, schema 3: what the headless loop needs to resume without counting anything twice.

-- Active wall time spent by the run (waits for provider rate limits excluded).
ALTER TABLE runs ADD COLUMN active_ms INTEGER NOT NULL DEFAULT 0;

ALTER TABLE iterations ADD COLUMN session_id TEXT;
ALTER TABLE iterations ADD COLUMN duration_ms INTEGER;
ALTER TABLE iterations ADD COLUMN active_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE iterations ADD COLUMN facts_json TEXT;
ALTER TABLE iterations ADD COLUMN summary TEXT;
