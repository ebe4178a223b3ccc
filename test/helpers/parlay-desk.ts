// A parlay desk on the real server (PGlite, or PostgreSQL), restartable on the same data, for the
// durable parlay tests (test/integration/parlay-durable.test.ts and parlay-boosts-durable.test.ts;
// docs/parlays.md): one NFL game of two markets (Moneyline, Total 47.5), parties made through the
// admin API with 1,000 CASH each, resting liquidity on every outcome, and the check that each
// party's ledger sums to its wallet (available + reserved).

import assert from 'node:assert/strict';
import type { RunningServer } from '../../src/main.ts';
import type { StoreKind } from '../../src/store/types.ts';
import { ADMIN_ID, ADMIN_SECRET, Api, serverPlace, start } from './server.ts';

/** A ledger amount as the wire writes it ("-5.00000") → Money (1e-5 of a unit), exactly. */
export const ledgerMoney = (s: string): number => {
  const neg = s.startsWith('-');
  const [w, f] = s.replace('-', '').split('.') as [string, string];
  const v = Number(w) * 100_000 + Number((f ?? '').padEnd(5, '0'));
  return neg ? -v : v;
};

/** A wire amount in currency units → Money. */
export const unitsToMoney = (x: number): number => Math.round(x * 100_000);

/** Asserts the answer's status is one of `codes`, showing the body when it is not. */
export const expectStatus = (r: { status: number; body: unknown }, ...codes: number[]): void =>
  assert.ok(codes.includes(r.status), `${r.status} ${JSON.stringify(r.body)}`);

export interface Party {
  name: string;
  accountId: string;
  token: string;
}

export interface Market {
  id: string;
  outcomeIds: [string, string];
}

/**
 * The body of the game the parlay tests trade on (POST /admin/v1/events): Kansas City Chiefs @
 * Buffalo Bills (NFL), pre-game, with a moneyline and a total of 47.5, between two teams made
 * already.
 */
export const kcAtBufEvent = (homeTeamId: string, awayTeamId: string) => ({
  type: 'Game',
  status: 'OPEN_PREGAME',
  description: 'Kansas City Chiefs @ Buffalo Bills',
  league: 'NFL',
  scheduledStart: '2030-01-26T18:30:00.000Z',
  game: { homeTeamId, awayTeamId },
  markets: [
    {
      type: 'MONEY',
      description: 'KC @ BUF Moneyline',
      outcomes: [{ description: 'BUF' }, { description: 'KC' }],
    },
    {
      type: 'TOTAL',
      strike: 47.5,
      description: 'KC @ BUF Total 47.5',
      outcomes: [{ description: 'Over 47.5' }, { description: 'Under 47.5' }],
    },
  ],
});

/**
 * The game the parlay tests trade on (kcAtBufEvent), created through the admin API (NFL must
 * exist); its two markets.
 */
export async function kcAtBuf(admin: Api): Promise<Market[]> {
  const team = async (name: string, symbol: string) =>
    (await admin.call('POST', '/admin/v1/teams', { league: 'NFL', name, symbol })).body.id as string;
  const ev = await admin.call(
    'POST',
    '/admin/v1/events',
    kcAtBufEvent(await team('Buffalo Bills', 'BUF'), await team('Kansas City Chiefs', 'KC')),
  );
  expectStatus(ev, 201);
  return ev.body.markets as Market[];
}

export interface ParlayDesk {
  /** The operator's token (it survives a restart: the signing keys are in the store). */
  adminToken: string;
  m1: Market;
  m2: Market;
  /** An Api as `who` on the server running now. */
  as(who: { token: string }): Api;
  /** The operator's Api on the server running now. */
  admin(): Api;
  /** A client (with `scopes`, else the default ones) whose account holds 1,000 CASH. */
  party(name: string, scopes?: string[]): Promise<Party>;
  /** GTC bids of 1,000 at 0.45 on every outcome of both markets, so the pricer has books. */
  offerLiquidity(who: { token: string }): Promise<void>;
  /** A maker's firm quote on a request: `price`, up to 10,000 contracts, for a minute (201). */
  quote(maker: { token: string }, requestId: string, price: number): Promise<void>;
  /** The party's CASH ledger rows. */
  ledger(who: { token: string }): Promise<{ kind: string; amount: string }[]>;
  /** Asserts, for each party, that its CASH ledger sums to its wallet (available + reserved). */
  checkLedgers(label: string, parties: Party[]): Promise<void>;
  /** Stops the server and starts it again on the same data (with `env` added, for this and later starts). */
  restart(env?: Record<string, string>): Promise<void>;
}

/** Starts the desk on `kind`; `cleanup` receives what stops the server and removes its data, in order. */
export async function parlayDesk(kind: StoreKind, cleanup: (() => Promise<void>)[]): Promise<ParlayDesk> {
  const place = await serverPlace(kind, { TICKBOOK_DEMO: 'false' });
  cleanup.push(() => place.destroy());
  let extraEnv: Record<string, string> = {};
  let srv: RunningServer = await start(place);
  let closed = false;
  cleanup.push(async () => {
    if (!closed) await srv.close();
  });
  const first = new Api(srv);
  const adminToken = await first.tokenFor(ADMIN_ID, ADMIN_SECRET);
  const as = (who: { token: string }) => new Api(srv, who.token);
  const admin = () => as({ token: adminToken });
  expectStatus(
    await admin().call('POST', '/admin/v1/leagues', { code: 'NFL', name: 'National Football League' }),
    201,
  );
  const [m1, m2] = await kcAtBuf(admin());
  const ledger = async (who: { token: string }) =>
    (await as(who).call('GET', '/nbx/v2/emm/transactions?currency=CASH&limit=1000')).body as {
      kind: string;
      amount: string;
    }[];
  const wallet = async (who: { token: string }) => {
    const b = await as(who).call('GET', '/nbx/v2/emm/account/balance?currency=CASH');
    const c = await as(who).call('GET', '/nbx/v2/emm/account/open-costs-and-credit?currency=CASH');
    return unitsToMoney(b.body.balance) + unitsToMoney(c.body.openOrderCost);
  };
  return {
    adminToken,
    m1: m1!,
    m2: m2!,
    as,
    admin,
    async party(name, scopes) {
      const c = await admin().call('POST', '/admin/v1/clients', { name, ...(scopes ? { scopes } : {}) });
      expectStatus(c, 201);
      expectStatus(
        await admin().call('POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
          currency: 'CASH',
          amount: 1000,
        }),
        200,
        201,
      );
      return {
        name,
        accountId: c.body.accountId as string,
        token: await admin().tokenFor(c.body.clientId, c.body.clientSecret),
      };
    },
    async offerLiquidity(who) {
      for (const m of [m1!, m2!])
        for (const o of m.outcomeIds)
          expectStatus(
            await as(who).call('POST', '/nbx/v2/emm/orders/place', {
              outcomeId: o,
              price: 0.45,
              qty: 1000,
              currency: 'CASH',
              tif: 'GTC',
            }),
            201,
          );
    },
    async quote(maker, requestId, price) {
      expectStatus(
        await as(maker).call('POST', '/nbx/v1/parlay/quotes', {
          requestId,
          price,
          maxQty: 10_000,
          expiresInMs: 60_000,
        }),
        201,
      );
    },
    ledger,
    async checkLedgers(label, parties) {
      for (const who of parties) {
        const rows = await ledger(who);
        assert.equal(
          rows.reduce((s, t) => s + ledgerMoney(t.amount), 0),
          await wallet(who),
          `${label}: ${who.name}'s ledger ≠ wallet`,
        );
      }
    },
    async restart(env) {
      await srv.close();
      closed = true;
      if (env !== undefined) extraEnv = { ...extraEnv, ...env };
      srv = await start(place, extraEnv);
      closed = false;
    },
  };
}
