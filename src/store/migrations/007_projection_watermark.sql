-- 007: the history projector's watermark (docs/journal.md, "Projector"). The history tables of
-- migration 005 are a projection of the journal, written after commands are durable; `seq` is
-- the last journal seq whose rows are in them, updated in the same transaction as those rows, so
-- after any crash the projector resumes exactly after it. Until now the rows were written in the
-- journal's own transaction, so an existing database is projected up to its journal's end.
CREATE TABLE IF NOT EXISTS projection_watermark (
  name text PRIMARY KEY,
  seq bigint NOT NULL
);
INSERT INTO projection_watermark (name, seq)
SELECT 'history', coalesce(max(seq), 0) FROM journal
ON CONFLICT (name) DO NOTHING;
