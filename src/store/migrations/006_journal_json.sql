-- 006: journal.cmd as json (text) instead of jsonb (docs/journal.md, docs/decisions.md).
-- Recovery reads every command back as text; jsonb had to be turned back into text row by row in
-- the database on every read, json is returned as stored. Appends keep the command exactly as the
-- sequencer serialized it (compact, key order kept) and are no slower. Still plain SQL-readable:
-- cmd->>'type', cmd->'price' work on json as on jsonb. Existing rows are converted in place.
ALTER TABLE journal ALTER COLUMN cmd TYPE json USING cmd::json;
