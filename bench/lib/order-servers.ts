// What the order-entry benches share (bench/orders-http.ts, bench/orders-ws.ts,
// bench/mass-quote.ts): the built server started by plain node as `npm start` runs it
// (orders-child.mjs), its environment, CPU time from /proc, the game every round trades on and its
// funded traders, and the placement bodies every one of them sends.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Child, fetchToken, httpCall } from '../../test/helpers/child-server.ts';

/** The options every order bench takes (parseArgs): seconds per load, rounds, connections. */
export const LOAD_OPTIONS = {
  seconds: { type: 'string', default: '10' },
  runs: { type: 'string', default: '3' },
  connections: { type: 'string', default: '32' },
} as const;

export const ADMIN = { id: 'bench-admin', secret: 'bench-admin-secret-0123456789abcdefghijklmnopqrstu' };

const ordersChild = fileURLToPath(new URL('./orders-child.mjs', import.meta.url));

/** The server's environment: quiet, no demo, the bench's admin client, embedded unless told. */
export const BASE_ENV: Record<string, string> = {
  PORT: '0',
  LOG_LEVEL: 'silent',
  TICKBOOK_DEMO: 'false',
  DEMO_LIVE: 'false',
  TICKBOOK_ADMIN_CLIENT_ID: ADMIN.id,
  TICKBOOK_ADMIN_CLIENT_SECRET: ADMIN.secret,
  KEY_ENCRYPTION_SECRET: 'bench',
  DATABASE_URL: '',
  // as `npm start` and the Dockerfile run it (docs/packaging.md), so the benches measure that server
  MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
};

/**
 * A checkout's built server (dist/main.js) by plain node; `profDir`: with a V8 CPU profile
 * written there on exit; `nodeArgs`: flags for node (a young generation's size, say).
 */
export async function bootBuilt(
  checkout: string,
  env: Record<string, string>,
  profDir?: string,
  nodeArgs: readonly string[] = [],
): Promise<Child> {
  const args = [...nodeArgs, ...(profDir !== undefined ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [])];
  const proc = spawn(process.execPath, [...args, ordersChild], {
    env: { ...process.env, ...env, MAIN_JS: join(checkout, 'dist/main.js') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((res) => proc.once('exit', res));
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\S+)/.exec(buf);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', (code) => reject(new Error(`server exited with ${code} before it was ready`)));
  });
  return { proc, url, exited };
}

/**
 * User + system CPU seconds so far (Linux /proc; NaN elsewhere) of a process, all its threads, or
 * with `mainThread` of its main thread alone (the event loop; the embedded store's SQL and the
 * signing pool run on threads of their own).
 */
export function cpuSeconds(pid: number | undefined, mainThread = false): number {
  try {
    const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return Number.NaN;
  }
}

export async function call(url: string, method: string, path: string, token: string | null, body?: unknown) {
  const r = await httpCall(url, method, path, token, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export interface Game {
  /** Each market's id and its two outcome ids. */
  markets: string[];
  outcomes: string[][];
  /** Access tokens of the funded traders, in order. */
  tokens: string[];
}

/**
 * A game with 10 spread markets and `traders` funded traders (1e9 CASH each), in a new league
 * `league` (another code than NBA where the demo slate is on).
 */
export async function setupGame(url: string, traders: number, league = 'NBA'): Promise<Game> {
  const admin = await fetchToken(url, ADMIN.id, ADMIN.secret);
  await call(url, 'POST', '/admin/v1/leagues', admin, {
    code: league,
    name: league === 'NBA' ? 'National Basketball Association' : `Bench league ${league}`,
  });
  const home = await call(url, 'POST', '/admin/v1/teams', admin, {
    league,
    name: 'Boston Celtics',
    symbol: 'BOS',
  });
  const away = await call(url, 'POST', '/admin/v1/teams', admin, {
    league,
    name: 'New York Knicks',
    symbol: 'NYK',
  });
  const ev = await call(url, 'POST', '/admin/v1/events', admin, {
    type: 'Game',
    status: 'OPEN_PREGAME',
    description: 'New York Knicks @ Boston Celtics',
    league,
    scheduledStart: '2031-01-01T00:00:00.000Z',
    game: { homeTeamId: home.id, awayTeamId: away.id },
    markets: Array.from({ length: 10 }, (_, i) => ({
      type: 'SPREAD',
      strike: -0.5 - i,
      description: `Spread ${i}`,
      outcomes: [{ description: 'BOS' }, { description: 'NYK' }],
    })),
  });
  const tokens: string[] = [];
  for (let i = 0; i < traders; i++) {
    const c = await call(url, 'POST', '/admin/v1/clients', admin, { name: `trader-${i}` });
    await call(url, 'POST', `/admin/v1/accounts/${c.accountId}/deposits`, admin, {
      currency: 'CASH',
      amount: 1e9,
    });
    tokens.push(await fetchToken(url, c.clientId, c.clientSecret));
  }
  return {
    markets: ev.markets.map((m: { id: string }) => m.id),
    outcomes: ev.markets.map((m: { outcomeIds: string[] }) => m.outcomeIds),
    tokens,
  };
}

/** Prices around 0.5 on both outcomes: roughly a third of the orders cross and trade. */
export const PRICES = [0.46, 0.47, 0.48, 0.49, 0.5, 0.51, 0.52];

/**
 * The k-th placement of a run: markets in turn, the side flipping every 8 orders, each side's
 * orders from one of two traders (the same body bench/lib/trade-clients.mjs sends on the socket).
 */
export function placeBody(game: Game, k: number): { token: string; body: string } {
  const m = game.outcomes[k % game.outcomes.length]!;
  const side = (k >> 3) & 1;
  return {
    token: game.tokens[side]!,
    body: JSON.stringify({
      outcomeId: m[side],
      price: PRICES[(k * 7) % PRICES.length],
      qty: 100 * (1 + (k % 5)),
      currency: 'CASH',
      tif: 'GTC',
    }),
  };
}

// The middle of the rounds; of an even number, the mean of the two middle ones (taking the upper
// one biased every two-round table upward).
export { median } from './frame-probe.ts';
