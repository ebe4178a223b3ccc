-- 011: scale-out peers (docs/cluster.md "Peers"). One row: a random secret every process of this
-- store reads at start. A process proves to another that it is a peer (a process of the same store)
-- with an HMAC of the request under it: the leader then trusts the client address a replica
-- forwards (x-forwarded-for) and a replica's cancel-on-disconnect. Whoever can read this table can
-- read the signing keys too, so it adds no trust the database did not already confer.
CREATE TABLE IF NOT EXISTS cluster_peer (
  id integer PRIMARY KEY CHECK (id = 1),
  secret text NOT NULL
);
