// A trading desk for the `/trade` socket tests (docs/order-entry.md): the real server on one
// store, an operator token, one league with a game of two TOTAL markets, and traders made through
// the admin API (a client with an account funded with 1,000,000 CASH). Shared by
// test/http/trade-socket.test.ts and test/http/trade-socket-quotes.test.ts, which set up the same
// desk and differ only in the league code.

import assert from 'node:assert/strict';
import type { RunningServer } from '../../src/main.ts';
import type { StoreKind } from '../../src/store/types.ts';
import { ADMIN_ID, ADMIN_SECRET, Api, type ServerPlace, serverPlace, start } from './server.ts';

export interface Desk {
  srv: RunningServer;
  place: ServerPlace;
  admin: Api;
  eventId: string;
  markets: { id: string; outcomeIds: [string, string] }[];
  url: string;
  trader(
    name: string,
    scopes?: string[],
  ): Promise<{ clientId: string; secret: string; token: string; api: Api }>;
}

/** Desks made by this process, so each gets its own league code (`${prefix}${n}`). */
let league = 0;

/** A server on `kind` with one OPEN_PREGAME game of two markets (Total 40.5, Total 41.5). */
export async function desk(kind: StoreKind, leaguePrefix: string): Promise<Desk> {
  const place = await serverPlace(kind);
  const srv = await start(place);
  const admin = new Api(srv);
  admin.token = await admin.tokenFor(ADMIN_ID, ADMIN_SECRET);
  const code = `${leaguePrefix}${++league}`;
  assert.equal((await admin.call('POST', '/admin/v1/leagues', { code, name: 'Trade League' })).status, 201);
  const team = async (name: string, symbol: string) =>
    (await admin.call('POST', '/admin/v1/teams', { league: code, name, symbol })).body.id;
  const [home, away] = [await team('Home Team', 'HOM'), await team('Away Team', 'AWY')];
  const ev = await admin.call('POST', '/admin/v1/events', {
    type: 'Game',
    status: 'OPEN_PREGAME',
    description: 'Away Team @ Home Team',
    league: code,
    scheduledStart: '2030-01-26T18:30:00.000Z',
    game: { homeTeamId: home, awayTeamId: away },
    markets: [0, 1].map((i) => ({
      type: 'TOTAL',
      strike: 40.5 + i,
      description: `Total ${40.5 + i}`,
      outcomes: [{ description: 'Over' }, { description: 'Under' }],
    })),
  });
  assert.equal(ev.status, 201, JSON.stringify(ev.body));
  return {
    srv,
    place,
    admin,
    eventId: ev.body.event.id,
    markets: ev.body.markets,
    url: `${srv.url.replace('http', 'ws')}/trade`,
    async trader(name, scopes) {
      const c = await admin.call('POST', '/admin/v1/clients', { name, ...(scopes ? { scopes } : {}) });
      assert.equal(c.status, 201, JSON.stringify(c.body));
      await admin.call('POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
        currency: 'CASH',
        amount: 1_000_000,
      });
      const token = await admin.tokenFor(c.body.clientId, c.body.clientSecret);
      return { clientId: c.body.clientId, secret: c.body.clientSecret, token, api: new Api(srv, token) };
    },
  };
}

/** A GTC CASH order body of 100 contracts, with any field overridden. */
export const orderBody = (outcomeId: string, price: number, extra: Record<string, unknown> = {}) => ({
  outcomeId,
  price,
  qty: 100,
  currency: 'CASH',
  tif: 'GTC',
  ...extra,
});
