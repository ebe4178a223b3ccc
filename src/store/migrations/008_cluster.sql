-- 008: scale-out on PostgreSQL (docs/cluster.md). One row: the current leader of this store (the
-- holder of the writer advisory lock), where other processes forward commands to, and the fencing
-- epoch. A process that takes the lock increments epoch; every journal commit of a leader reads
-- this row FOR SHARE and must find its own epoch, so a leader that lost its lock without noticing
-- can never commit beside its successor (the successor's increment waits for, then invalidates,
-- the old leader's transactions).
CREATE TABLE IF NOT EXISTS cluster_leader (
  id integer PRIMARY KEY CHECK (id = 1),
  epoch bigint NOT NULL,
  url text,
  node text NOT NULL,
  since bigint NOT NULL
);
