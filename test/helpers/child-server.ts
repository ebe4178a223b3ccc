// A Tickbook server in a child process, driven over real HTTP: used where the process itself
// must be killed (test/integration/kill9.test.ts) or must not share an event loop with the load
// generator (bench/orders-http.ts). The child prints `READY <url>` once it listens.

import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Child {
  proc: ChildProcess;
  url: string;
  /** Resolves when the process has exited (captured at spawn, so no exit is missed). */
  exited: Promise<unknown>;
}

export async function bootChild(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<Child> {
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((res) => proc.once('exit', res));
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\S+)/.exec(buf);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', (code) => reject(new Error(`server exited with ${code} before it was ready`)));
  });
  return { proc, url, exited };
}

/**
 * The restart after a kill -9. A restart that fails keeps a copy of the data directory it failed on
 * (the test's place is deleted afterwards): a store left unopenable by kill -9 must be diagnosable.
 */
export async function rebootAfterKill(
  script: string,
  env: Record<string, string>,
  cycle: number,
): Promise<Child> {
  try {
    return await bootChild(script, env);
  } catch (err) {
    const kept = fileURLToPath(new URL(`../../.tmp/kill9-failures/${Date.now()}`, import.meta.url));
    if (env.DATA_DIR !== undefined) cpSync(env.DATA_DIR, kept, { recursive: true });
    throw new Error(`cycle ${cycle}: restart after kill -9 failed (${String(err)}); data kept in ${kept}`);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field by callers
export type Json = any;

export async function httpCall(
  url: string,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const r = await fetch(url + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

export async function fetchToken(url: string, clientId: string, clientSecret: string): Promise<string> {
  const r = await httpCall(url, 'POST', '/nbx/v1/auth/emm-token', null, {
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
  });
  if (r.status !== 200) throw new Error(`token: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.access_token as string;
}

/**
 * An NBA game (Knicks @ Celtics, OPEN_PREGAME, far in the future) created through the admin API,
 * with `markets` two-outcome markets; returns each market's [outcome 0, outcome 1] ids.
 */
export async function createGame(
  url: string,
  adminToken: string,
  markets: { type: string; strike?: number; description: string }[],
): Promise<string[][]> {
  const ok = async (path: string, body: unknown) => {
    const r = await httpCall(url, 'POST', path, adminToken, body);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await ok('/admin/v1/leagues', { code: 'NBA', name: 'National Basketball Association' });
  const home = await ok('/admin/v1/teams', { league: 'NBA', name: 'Boston Celtics', symbol: 'BOS' });
  const away = await ok('/admin/v1/teams', { league: 'NBA', name: 'New York Knicks', symbol: 'NYK' });
  const ev = await ok('/admin/v1/events', {
    type: 'Game',
    status: 'OPEN_PREGAME',
    description: 'New York Knicks @ Boston Celtics',
    league: 'NBA',
    scheduledStart: '2031-01-01T00:00:00.000Z',
    game: { homeTeamId: home.id, awayTeamId: away.id },
    markets: markets.map((m) => ({ ...m, outcomes: [{ description: 'BOS' }, { description: 'NYK' }] })),
  });
  return ev.markets.map((m: { outcomeIds: string[] }) => m.outcomeIds);
}

/** A new client (default scopes unless `scopes`) whose account got `amount` CASH deposited. */
export async function fundedClient(
  url: string,
  adminToken: string,
  name: string,
  amount: number,
  scopes?: readonly string[],
): Promise<{ clientId: string; clientSecret: string; accountId: string }> {
  const c = await httpCall(url, 'POST', '/admin/v1/clients', adminToken, {
    name,
    ...(scopes ? { scopes } : {}),
  });
  if (c.status !== 201) throw new Error(`POST /admin/v1/clients: ${c.status} ${JSON.stringify(c.body)}`);
  const d = await httpCall(url, 'POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, adminToken, {
    currency: 'CASH',
    amount,
  });
  if (d.status !== 201 && d.status !== 200) throw new Error(`deposit: ${d.status} ${JSON.stringify(d.body)}`);
  return c.body;
}
