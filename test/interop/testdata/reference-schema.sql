-- The Python reference's bootstrap script (docs/decisions.md#server-tables), as it runs it at
-- every start. The interop test applies it with database/sql directly, never
-- through our store, to build a file exactly as the reference leaves it.
CREATE TABLE IF NOT EXISTS memory_events (
    id        INTEGER PRIMARY KEY,
    ts        TEXT NOT NULL,
    session   TEXT NOT NULL,
    kind      TEXT NOT NULL DEFAULT 'note',
    content   TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL UNIQUE
);
CREATE TRIGGER IF NOT EXISTS memory_events_no_update BEFORE UPDATE ON memory_events
    BEGIN SELECT RAISE(ABORT, 'memory_events is append-only'); END;
CREATE TRIGGER IF NOT EXISTS memory_events_no_delete BEFORE DELETE ON memory_events
    BEGIN SELECT RAISE(ABORT, 'memory_events is append-only'); END;

CREATE TABLE IF NOT EXISTS memory_checkpoints (
    id            INTEGER PRIMARY KEY,
    ts            TEXT NOT NULL,
    session       TEXT NOT NULL,
    summary       TEXT NOT NULL,
    last_event_id INTEGER NOT NULL,
    head_hash     TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS memory_checkpoints_no_update BEFORE UPDATE ON memory_checkpoints
    BEGIN SELECT RAISE(ABORT, 'memory_checkpoints is append-only'); END;
CREATE TRIGGER IF NOT EXISTS memory_checkpoints_no_delete BEFORE DELETE ON memory_checkpoints
    BEGIN SELECT RAISE(ABORT, 'memory_checkpoints is append-only'); END;

CREATE TABLE IF NOT EXISTS query_log (
    id          INTEGER PRIMARY KEY,
    ts          TEXT NOT NULL,
    session     TEXT NOT NULL,
    tool        TEXT NOT NULL,
    query       TEXT,
    ok          INTEGER NOT NULL,
    rows        INTEGER,
    error       TEXT,
    duration_ms INTEGER NOT NULL,
    detail      TEXT
);
CREATE INDEX IF NOT EXISTS query_log_ts ON query_log(ts);
CREATE TRIGGER IF NOT EXISTS query_log_no_update BEFORE UPDATE ON query_log
    BEGIN SELECT RAISE(ABORT, 'query_log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS query_log_no_delete BEFORE DELETE ON query_log
    BEGIN SELECT RAISE(ABORT, 'query_log is append-only'); END;

CREATE VIEW IF NOT EXISTS query_errors AS
-- description: failed tool calls, newest first; shows where queries go wrong
SELECT id, ts, tool, query, error FROM query_log WHERE ok = 0 ORDER BY id DESC;
