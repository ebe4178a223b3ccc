// Multi-process scale-out tests (docs/cluster.md): Tickbook processes as children on one
// PostgreSQL schema (serverPlace('postgres')), driven over HTTP with the seq headers visible.

import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { ExchangeRuntime } from '../../src/runtime/exchange-runtime.ts';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { bootChild, type Child, type Json } from '../helpers/child-server.ts';
import type { ServerPlace } from '../helpers/server.ts';

const child = fileURLToPath(new URL('../integration/server-child.ts', import.meta.url));

export interface Proc extends Child {
  name: string;
}

/** Starts one process on the place; `name` is its node name (PostgreSQL application_name). */
export async function startProc(
  place: ServerPlace,
  name: string,
  env: Record<string, string> = {},
): Promise<Proc> {
  const c = await bootChild(child, { ...place.env, TICKBOOK_NODE_NAME: name, ...env });
  return { ...c, name };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

export async function req(
  url: string,
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const r = await fetch(url + path, {
    method,
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await r.text();
  let body: Json;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: r.status, headers: r.headers, body };
}

export interface Status {
  node: string;
  mode: 'starting' | 'leader' | 'replica' | 'down';
  seq: number;
  hash: string;
  epoch: number;
  leaderUrl: string | null;
  lagSeq: number;
  lagMs: number;
  ready: boolean;
}

export async function status(url: string, adminToken: string): Promise<Status> {
  const r = await req(url, 'GET', '/admin/v1/cluster', { token: adminToken });
  if (r.status !== 200) throw new Error(`cluster status ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Status;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `f` returns a value (not undefined) or `ms` pass. */
export async function until<T>(f: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}${lastErr ? `: ${String(lastErr)}` : ''}`);
    await sleep(50);
  }
}

/** Every process reports the same seq and the same state hash at it. */
export async function converged(urls: string[], adminToken: string, ms = 10_000): Promise<Status[]> {
  return until(
    async () => {
      const all = await Promise.all(urls.map((u) => status(u, adminToken)));
      const s0 = all[0]!;
      return all.every((s) => s.seq === s0.seq && s.hash === s0.hash) ? all : undefined;
    },
    ms,
    'every process at the same seq and hash',
  );
}

/** Journals `n` commands (accounts and deposits) straight through a sequencer, without snapshots. */
export async function fillJournal(
  databaseUrl: string,
  env: Record<string, string>,
  n: number,
): Promise<void> {
  const store = await PostgresStore.open(databaseUrl, 2);
  try {
    await store.migrate();
    const config = loadConfig({ ...env, SNAPSHOT_EVERY: '1000000000' });
    const rt = await ExchangeRuntime.open({ config, store, log: pino({ level: 'silent' }) });
    const accounts = Array.from({ length: 100 }, () => rt.newId());
    await rt.submitMany(accounts.map((accountId) => ({ type: 'CreateAccount', accountId })));
    for (let done = accounts.length; done < n; ) {
      const k = Math.min(5000, n - done);
      await rt.submitMany(
        Array.from({ length: k }, (_, i) => ({
          type: 'Deposit' as const,
          accountId: accounts[i % accounts.length]!,
          currency: 'CASH' as const,
          amount: 1,
        })),
      );
      done += k;
    }
    await rt.close();
    // close() writes a final snapshot; drop it so that followers really read the whole journal.
    await store.exec('DELETE FROM snapshots');
  } finally {
    await store.close();
  }
}
