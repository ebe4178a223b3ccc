-- 013: the token issuer of the store (docs/cluster.md "One issuer per store"). The first process
-- that starts on the store records its public base URL here; every later process signs and
-- verifies tokens with this one, so a token issued through any process is accepted by all.
CREATE TABLE IF NOT EXISTS token_issuer (
  id integer PRIMARY KEY CHECK (id = 1),
  issuer text NOT NULL,
  recorded_at bigint NOT NULL
);
