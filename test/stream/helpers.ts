// Shared by the stream tests: a real server with a game and funded traders, and a `ws` client that
// records every frame and waits for the one a test expects.

import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import type { RunningServer } from '../../src/main.ts';
import { ADMIN_ID, ADMIN_SECRET, Api, type ServerPlace, serverPlace, start } from '../helpers/server.ts';

export interface Trader {
  clientId: string;
  accountId: string;
  token: string;
  api: Api;
}

export interface World {
  srv: RunningServer;
  place: ServerPlace;
  admin: Api;
  eventId: string;
  markets: { id: string; outcomeIds: [string, string] }[];
  trader(name: string, scopes?: string[]): Promise<Trader>;
  wsUrl: string;
  close(): Promise<void>;
}

let leagueN = 0;

export async function world(env: Record<string, string> = {}, nMarkets = 2): Promise<World> {
  const place = await serverPlace('pglite', env);
  const srv = await start(place);
  const admin = new Api(srv);
  admin.token = await admin.tokenFor(ADMIN_ID, ADMIN_SECRET);
  const code = `L${++leagueN}`;
  assert.equal((await admin.call('POST', '/admin/v1/leagues', { code, name: 'Test League' })).status, 201);
  const home = await admin.call('POST', '/admin/v1/teams', {
    league: code,
    name: 'Home Team',
    symbol: 'HOM',
  });
  const away = await admin.call('POST', '/admin/v1/teams', {
    league: code,
    name: 'Away Team',
    symbol: 'AWY',
  });
  const markets = [];
  for (let i = 0; i < nMarkets; i++) {
    markets.push({
      type: 'TOTAL',
      strike: 40.5 + i,
      description: `AWY @ HOM Total ${40.5 + i}`,
      outcomes: [{ description: `Over ${40.5 + i}` }, { description: `Under ${40.5 + i}` }],
    });
  }
  const ev = await admin.call('POST', '/admin/v1/events', {
    type: 'Game',
    status: 'OPEN_PREGAME',
    description: 'Away Team @ Home Team',
    league: code,
    scheduledStart: '2030-01-26T18:30:00.000Z',
    game: { homeTeamId: home.body.id, awayTeamId: away.body.id },
    markets,
  });
  assert.equal(ev.status, 201, JSON.stringify(ev.body));
  const trader = async (name: string, scopes?: string[]): Promise<Trader> => {
    const c = await admin.call('POST', '/admin/v1/clients', { name, ...(scopes ? { scopes } : {}) });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    if (c.body.accountId) {
      const dep = await admin.call('POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
        currency: 'CASH',
        amount: 1_000_000,
      });
      assert.ok(dep.status === 200 || dep.status === 201, JSON.stringify(dep.body));
    }
    const token = await admin.tokenFor(c.body.clientId, c.body.clientSecret);
    return { clientId: c.body.clientId, accountId: c.body.accountId, token, api: new Api(srv, token) };
  };
  return {
    srv,
    place,
    admin,
    eventId: ev.body.event.id,
    markets: ev.body.markets.map((m: { id: string; outcomeIds: [string, string] }) => ({
      id: m.id,
      outcomeIds: m.outcomeIds,
    })),
    trader,
    wsUrl: `${srv.url.replace('http', 'ws')}/tape`,
    close: async () => {
      await srv.close();
      await place.destroy();
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: frames are arbitrary JSON
export type Frame = any;

export class Client {
  readonly frames: Frame[] = [];
  private waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  closed: { code: number; reason: string } | undefined;
  private closeWaiters: ((c: { code: number; reason: string }) => void)[] = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      const f = JSON.parse(d.toString());
      this.frames.push(f);
      this.waiters = this.waiters.filter((w) => {
        if (!w.pred(f)) return true;
        w.resolve(f);
        return false;
      });
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of this.closeWaiters.splice(0)) w(this.closed);
    });
  }

  static open(
    url: string,
    opts: { token?: string; protocols?: string[]; autoPong?: boolean } = {},
  ): Promise<Client> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, opts.protocols ?? [], {
        headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
        autoPong: opts.autoPong ?? true,
      });
      const c = new Client(ws);
      ws.once('open', () => resolve(c));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () =>
          reject(
            Object.assign(new Error(`HTTP ${res.statusCode}`), {
              status: res.statusCode,
              body,
              headers: res.headers,
            }),
          ),
        );
      });
      ws.once('error', reject);
    });
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  /** The first frame (already received or future) matching pred. */
  next(pred: (f: Frame) => boolean, timeoutMs = 5000, from = 0): Promise<Frame> {
    for (let i = from; i < this.frames.length; i++)
      if (pred(this.frames[i])) return Promise.resolve(this.frames[i]);
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () =>
          reject(new Error(`timed out waiting for a frame; last: ${JSON.stringify(this.frames.slice(-3))}`)),
        timeoutMs,
      );
      this.waiters.push({
        pred,
        resolve: (f) => {
          clearTimeout(t);
          resolve(f);
        },
      });
    });
  }

  waitClose(timeoutMs = 5000): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('socket not closed')), timeoutMs);
      this.closeWaiters.push((c) => {
        clearTimeout(t);
        resolve(c);
      });
    });
  }

  close(): void {
    this.ws.close();
  }
}

export const isEvent =
  (event: string, pred: (d: Frame) => boolean = () => true) =>
  (f: Frame) =>
    f.event === event && pred(f.data);
export const isTick =
  (type: string, pred: (f: Frame) => boolean = () => true) =>
  (f: Frame) =>
    f.type === type && pred(f);
