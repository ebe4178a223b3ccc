// The token issuer is a property of the store, not of the process. Every process on one store signs
// tokens with `iss` (and the first `aud`) set to the issuer and accepts only tokens that carry it;
// were each process to use its own PUBLIC_BASE_URL — whose default is http://localhost:<PORT> —
// two processes on different ports would refuse each other's tokens. So the first process that
// starts on a store records its public base URL, and every later one adopts the recorded value
// (docs/cluster.md "One issuer per store", docs/decisions.md "The token issuer belongs to the
// store").

import { type Config, ConfigError } from '../config.ts';
import type { Queryable } from '../store/types.ts';

/** The recorded issuer, if the store has one. */
export async function readIssuer(store: Queryable): Promise<string | undefined> {
  const r = await store.query<{ issuer: string }>('SELECT issuer FROM token_issuer WHERE id = 1');
  return r.rows[0]?.issuer;
}

/**
 * Records `config.publicBaseUrl` when the store has no issuer yet (the first writer wins a race:
 * ON CONFLICT DO NOTHING, then read back) and returns the store's issuer. An explicit
 * PUBLIC_BASE_URL that differs from it is refused: silently adopting the stored value would hide a
 * misconfiguration, and using the set one would split the cluster's tokens.
 */
export async function settleIssuer(store: Queryable, config: Config, now = Date.now()): Promise<string> {
  await store.query(
    'INSERT INTO token_issuer (id, issuer, recorded_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING',
    [config.publicBaseUrl, now],
  );
  const stored = await readIssuer(store);
  if (stored === undefined) throw new Error('token_issuer: the row just recorded is missing');
  if (config.publicBaseUrlSet && stored !== config.publicBaseUrl) {
    throw new ConfigError(
      'PUBLIC_BASE_URL',
      `${config.publicBaseUrl} differs from the token issuer this store records, ${stored} ` +
        '(set by the first process that started on it; every process of a store must sign and accept ' +
        `the same one). Unset PUBLIC_BASE_URL to use ${stored}, set it to ${stored}, or change the ` +
        "store's issuer with `node bin/tickbook.js issuer set <url>` (tokens issued before then stop working)",
    );
  }
  return stored;
}

/**
 * The configuration with the store's issuer as its public base URL. The legacy token audiences
 * that named the process's own address name the issuer instead, so the legacy endpoint keeps
 * accepting the server's own address.
 */
export function withIssuer(config: Config, issuer: string): Config {
  if (issuer === config.publicBaseUrl) return config;
  const own = config.publicBaseUrl;
  return Object.freeze({
    ...config,
    publicBaseUrl: issuer,
    legacyTokenAudiences: Object.freeze([
      ...new Set(config.legacyTokenAudiences.map((a) => (a === own ? issuer : a))),
    ]),
  });
}

/** Replaces the store's issuer (`tickbook issuer set`): every token issued before stops verifying. */
export async function replaceIssuer(store: Queryable, issuer: string, now = Date.now()): Promise<void> {
  await store.query(
    `INSERT INTO token_issuer (id, issuer, recorded_at) VALUES (1, $1, $2)
     ON CONFLICT (id) DO UPDATE SET issuer = EXCLUDED.issuer, recorded_at = EXCLUDED.recorded_at`,
    [issuer, now],
  );
}
