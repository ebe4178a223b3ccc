-- 012: the browser UI's read-only viewer credentials as published (docs/ui.md, docs/cluster.md).
-- The secret is public by design (every visitor of /ui/config.json receives it); it is kept here in
-- plain form so that every process of a PostgreSQL deployment publishes the one the leader set.
CREATE TABLE IF NOT EXISTS ui_viewer (
  id integer PRIMARY KEY CHECK (id = 1),
  client_id text NOT NULL,
  client_secret text NOT NULL,
  updated_at bigint NOT NULL
);
