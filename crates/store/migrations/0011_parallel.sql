-- pawl store, schema 11: the stories of a plan run in parallel (`pawl run --plan`), each in
-- its own worktree on its own branch, merged one at a time by the merge queue. One row per
-- story of a run; every change also appends a `story_work` event. Plain SQL (INTEGER/TEXT,
-- no engine-specific syntax).

CREATE TABLE story_work (
    run_id          TEXT NOT NULL REFERENCES runs(id),
    -- The story's id in the plan (`S1`, `parser`): its branch, worktree and PAWL_STORY.
    story           TEXT NOT NULL,
    -- The order of the plan.
    seq             INTEGER NOT NULL,
    -- The run's row in `stories` for it.
    story_id        TEXT NOT NULL,
    -- The planned story: title, files (scope), depends_on, criteria (JSON).
    plan_json       TEXT NOT NULL,
    -- The run's criterion ids of the story's criteria (JSON array).
    criteria_json   TEXT NOT NULL,
    -- pending | working | queued | merging | merged | failed
    state           TEXT NOT NULL,
    -- Sessions worked on it: its first and every send-back.
    attempts        INTEGER NOT NULL,
    -- The merge queue's last word: pending | merged | conflict | red
    merge_result    TEXT NOT NULL,
    -- What the merge queue saw on the merged tree (JSON), or the conflicting paths.
    evidence_json   TEXT NOT NULL,
    -- Why it was sent back, for its next session.
    feedback        TEXT,
    branch          TEXT NOT NULL,
    worktree        TEXT NOT NULL,
    -- The run branch's commit that holds it, once merged.
    merged_commit   TEXT,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (run_id, story)
);
