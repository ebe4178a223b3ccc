-- 007: armed dead-man switch countdowns (docs/stream.md "Dead-man switch"), so a deadline armed
-- before a restart still fires after it. A row exists while the countdown is armed; it is written
-- before the arming request is answered and deleted once the cancel-all command is durable.
CREATE TABLE IF NOT EXISTS stream_deadman (
  account_id text PRIMARY KEY,
  timeout_ms integer NOT NULL,
  deadline_ms bigint NOT NULL
);
