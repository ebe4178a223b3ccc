-- 003: the command journal and state snapshots (principles 1 and 2 of docs/architecture.md "Principles", docs/journal.md).
-- journal: one row per accepted command, in sequence order, with no gaps. cmd holds the whole
-- command (ts included) as jsonb: debuggable with plain SQL, and measured fast enough
-- (docs/journal.md). ts is repeated as a column for time-range queries without parsing jsonb.
CREATE TABLE IF NOT EXISTS journal (
  seq bigint PRIMARY KEY,
  ts bigint NOT NULL,
  cmd jsonb NOT NULL
);

-- snapshots: the serialized state machine after applying every command up to seq; hash is the
-- state machine's own hash() of that state, checked again after restore. Only the last two are
-- kept (the newest may be unreadable if a bug slipped into snapshot(); the older one is the fallback).
CREATE TABLE IF NOT EXISTS snapshots (
  seq bigint PRIMARY KEY,
  hash text NOT NULL,
  state bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
