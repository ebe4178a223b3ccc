-- 001: bookkeeping of the server instance itself. Later migrations add the auth tables, the
-- journal and the history tables.
CREATE TABLE IF NOT EXISTS server_meta (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
