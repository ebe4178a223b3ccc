-- 005: history read model. Orders, fills and ledger entries as the exchange emitted them, written
-- in the same transaction as the journal rows that produced them (src/runtime/history.ts), so the
-- history is exactly as durable as the journal and never runs ahead of or behind it.
CREATE TABLE IF NOT EXISTS order_history (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL,
  outcome_id uuid NOT NULL,
  market_id uuid NOT NULL,
  currency text NOT NULL,
  price integer NOT NULL,
  qty bigint NOT NULL,
  original_qty bigint NOT NULL,
  tif text NOT NULL,
  expires_at bigint,
  flags text,
  client_order_id text,
  status text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  seq bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS order_history_account ON order_history (account_id, created_at DESC, id DESC);

CREATE TABLE IF NOT EXISTS fill_history (
  id text PRIMARY KEY,
  seq bigint NOT NULL,
  account_id uuid NOT NULL,
  order_id uuid NOT NULL,
  outcome_id uuid NOT NULL,
  market_id uuid NOT NULL,
  currency text NOT NULL,
  price integer NOT NULL,
  qty bigint NOT NULL,
  is_taker boolean NOT NULL,
  is_wash boolean NOT NULL,
  fee bigint NOT NULL,
  fee_coefficient double precision NOT NULL,
  ts bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS fill_history_account ON fill_history (account_id, seq DESC, id DESC);

CREATE TABLE IF NOT EXISTS ledger_history (
  seq bigint NOT NULL,
  n integer NOT NULL,
  account_id uuid NOT NULL,
  currency text NOT NULL,
  kind text NOT NULL,
  amount bigint NOT NULL,
  ref text,
  PRIMARY KEY (seq, n)
);
CREATE INDEX IF NOT EXISTS ledger_history_account ON ledger_history (account_id, seq DESC);
