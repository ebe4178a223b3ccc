-- 010: the ledger as the transactions route serves it (docs/http.md, "Transactions"). Rows gain
-- their command's time and typed references; fills now write rows of their own (derived by the
-- projector, src/runtime/ledger-kinds.ts). Nothing is backfilled: rows projected before this
-- migration keep a NULL created_at and their engine kind names, and are read in the old shape.
ALTER TABLE ledger_history ADD COLUMN IF NOT EXISTS created_at bigint;
ALTER TABLE ledger_history ADD COLUMN IF NOT EXISTS order_id text;
ALTER TABLE ledger_history ADD COLUMN IF NOT EXISTS fill_id text;
ALTER TABLE ledger_history ADD COLUMN IF NOT EXISTS market_id text;
CREATE INDEX IF NOT EXISTS ledger_history_account_kind ON ledger_history (account_id, kind, seq DESC);
