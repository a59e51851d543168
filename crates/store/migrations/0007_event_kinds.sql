-- pawl store, schema 7: events found by run and kind (the Stop hook asks for the run's last
-- verification and this turn's guard denials without reading the whole event log).

CREATE INDEX events_run_kind ON events(run_id, kind, seq);
