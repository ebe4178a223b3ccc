import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import { EVENT_TRANSITIONS } from '../../src/exchange/transitions.ts';
import { EVENT_STATUSES, type EventStatus } from '../../src/exchange/types.ts';
import { kinds, market, ok, rejected, setup, T0 } from './fixtures.ts';

const ts = T0;

describe('catalog commands', () => {
  test('CreateLeague / CreateTeam: duplicates and unknown league', () => {
    const x = new Exchange();
    ok(x.apply({ type: 'CreateLeague', ts, code: 'NBA', name: 'Basketball' }));
    rejected(x.apply({ type: 'CreateLeague', ts, code: 'NBA', name: 'again' }), 'ALREADY_EXISTS');
    const team = { id: 'T', league: 'NBA', name: 'n', shortName: 's', symbol: 'S', mascot: 'm' };
    rejected(x.apply({ type: 'CreateTeam', ts, team: { ...team, league: 'XXX' } }), 'LEAGUE_NOT_FOUND');
    ok(x.apply({ type: 'CreateTeam', ts, team }));
    rejected(x.apply({ type: 'CreateTeam', ts, team }), 'ALREADY_EXISTS');
    assert.deepEqual(x.leagues(), [{ code: 'NBA', name: 'Basketball' }]);
    assert.equal(x.team('T')?.name, 'n');
    assert.equal(x.teams('NBA').length, 1);
    assert.equal(x.teams('NFL').length, 0);
    assert.equal(x.catalogVersion, 2);
    assert.equal(x.lastSeq, 2);
  });

  test('CreateEvent builds event, game, markets and outcomes', () => {
    const x = setup();
    const e = x.event('E1')!;
    assert.equal(e.status, 'OPEN_PREGAME');
    assert.deepEqual(e.marketIds, ['M1', 'M2']);
    assert.equal(x.game('G1')?.homeTeamId, 'H');
    assert.equal(x.game('G1')?.status, 'SCHEDULED');
    const m = x.market('M2')!;
    assert.equal(m.type, 'TOTAL');
    assert.equal(m.strike, 47.5);
    assert.equal(m.status, 'OPEN');
    assert.deepEqual(m.outcomeIds, ['M2-a', 'M2-b']);
    assert.equal(x.outcome('M2-b')?.index, 1);
    assert.equal(x.outcome('M2-b')?.status, 'TBD');
  });

  test('CreateEvent rejections', () => {
    const x = setup();
    const base = {
      type: 'CreateEvent' as const,
      ts,
      event: {
        id: 'E2',
        type: 'Game' as const,
        status: 'INITIAL' as const,
        description: 'd',
        league: 'NFL',
        scheduledStart: T0,
      },
      game: null,
      markets: [market('M9')],
    };
    const v0 = x.catalogVersion;
    rejected(x.apply({ ...base, event: { ...base.event, id: 'E1' } }), 'ALREADY_EXISTS');
    rejected(x.apply({ ...base, event: { ...base.event, league: 'XXX' } }), 'LEAGUE_NOT_FOUND');
    rejected(
      x.apply({ ...base, game: { id: 'G2', homeTeamId: 'H', awayTeamId: 'nobody' } }),
      'TEAM_NOT_FOUND',
    );
    rejected(x.apply({ ...base, game: { id: 'G1', homeTeamId: 'H', awayTeamId: 'A' } }), 'ALREADY_EXISTS');
    rejected(x.apply({ ...base, markets: [market('M1')] }), 'ALREADY_EXISTS');
    rejected(x.apply({ ...base, markets: [market('M9'), market('M9')] }), 'ALREADY_EXISTS');
    const three = { ...market('M9'), outcomes: [...market('M9').outcomes, { id: 'z', description: 'z' }] };
    rejected(x.apply({ ...base, markets: [three as never] }), 'VALIDATION_FAILED');
    rejected(
      x.apply({ ...base, markets: [{ ...market('M9'), type: 'BOGUS' as never }] }),
      'VALIDATION_FAILED',
    );
    rejected(x.apply({ ...base, event: { ...base.event, type: 'Nope' as never } }), 'VALIDATION_FAILED');
    rejected(x.apply({ ...base, event: { ...base.event, status: 'NOPE' as never } }), 'VALIDATION_FAILED');
    assert.equal(x.catalogVersion, v0, 'rejections change nothing');
    assert.equal(x.event('E2'), undefined);
    assert.equal(x.market('M9'), undefined);
    const evs = ok(x.apply(base));
    assert.deepEqual(evs, [{ kind: 'CatalogChanged', eventIds: ['E2'], marketIds: ['M9'] }]);
    assert.equal(x.catalogVersion, v0 + 1);
  });

  test('AddMarkets', () => {
    const x = setup();
    rejected(
      x.apply({ type: 'AddMarkets', ts, eventId: 'nope', markets: [market('M3')] }),
      'EVENT_NOT_FOUND',
    );
    rejected(x.apply({ type: 'AddMarkets', ts, eventId: 'E1', markets: [market('M2')] }), 'ALREADY_EXISTS');
    ok(x.apply({ type: 'AddMarkets', ts, eventId: 'E1', markets: [market('M3', 'SPREAD', -2.5)] }));
    assert.deepEqual(x.event('E1')!.marketIds, ['M1', 'M2', 'M3']);
    assert.equal(x.market('M3')?.eventId, 'E1');
    ok(x.apply({ type: 'SetEventStatus', ts, eventId: 'E1', status: 'CANCELED' }));
    rejected(
      x.apply({ type: 'AddMarkets', ts, eventId: 'E1', markets: [market('M4')] }),
      'INVALID_TRANSITION',
    );
  });

  test('eventsSorted orders by scheduledStart then id and is cached until an event is added', () => {
    const x = setup();
    const mk = (id: string, start: number) => ({
      type: 'CreateEvent' as const,
      ts,
      event: {
        id,
        type: 'Future' as const,
        status: 'INITIAL' as const,
        description: id,
        league: 'NFL',
        scheduledStart: start,
      },
      game: null,
      markets: [],
    });
    ok(x.apply(mk('Z', T0)));
    ok(x.apply(mk('B', T0)));
    ok(x.apply(mk('C', T0 - 1)));
    const s1 = x.eventsSorted();
    assert.deepEqual(
      s1.map((e) => e.id),
      ['C', 'B', 'Z', 'E1'],
    );
    ok(x.apply({ type: 'SetEventStatus', ts, eventId: 'B', status: 'OPEN_PREGAME' }));
    assert.equal(x.eventsSorted(), s1, 'same cached array after a status change');
    ok(x.apply(mk('A', T0 + 1)));
    assert.notEqual(x.eventsSorted(), s1);
    assert.deepEqual(
      x.eventsSorted().map((e) => e.id),
      ['C', 'B', 'Z', 'A', 'E1'],
    );
  });
});

describe('SetEventStatus transitions', () => {
  test('every pair follows the transition table', () => {
    for (const from of EVENT_STATUSES) {
      for (const to of EVENT_STATUSES) {
        const x = setup(from);
        const r = x.apply({ type: 'SetEventStatus', ts, eventId: 'E1', status: to });
        const allowed = (EVENT_TRANSITIONS[from] as readonly EventStatus[]).includes(to);
        assert.equal(r.ok, allowed, `${from} → ${to}`);
        if (!allowed) rejected(r, 'INVALID_TRANSITION');
        else assert.equal(x.event('E1')!.status, to);
      }
    }
  });
  test('the documented paths', () => {
    const x = setup('INITIAL');
    const path: EventStatus[] = [
      'OPEN_PREGAME',
      'CLOSED_PREGAME',
      'OPEN_PREGAME',
      'OPEN_INGAME',
      'DELAYED',
      'OPEN_INGAME',
      'FINAL',
    ];
    for (const s of path) {
      const evs = ok(x.apply({ type: 'SetEventStatus', ts, eventId: 'E1', status: s }));
      assert.ok(kinds(evs).includes('EventStatusChanged'));
      assert.ok(kinds(evs).includes('CatalogChanged'));
    }
    assert.equal(x.game('G1')!.status, 'FINAL');
    rejected(
      x.apply({ type: 'SetEventStatus', ts, eventId: 'E1', status: 'CANCELED' }),
      'INVALID_TRANSITION',
    );
    rejected(x.apply({ type: 'SetEventStatus', ts, eventId: 'nope', status: 'FINAL' }), 'EVENT_NOT_FOUND');
  });
  test('game status mirrors the event', () => {
    const x = setup();
    ok(x.apply({ type: 'SetEventStatus', ts, eventId: 'E1', status: 'OPEN_INGAME' }));
    assert.equal(x.game('G1')!.status, 'IN_PROGRESS');
    ok(x.apply({ type: 'SetEventStatus', ts, eventId: 'E1', status: 'DELAYED' }));
    assert.equal(x.game('G1')!.status, 'DELAYED');
  });
});

describe('SetGameScore and SetMarketStatus', () => {
  test('score', () => {
    const x = setup();
    const v = x.catalogVersion;
    rejected(
      x.apply({ type: 'SetGameScore', ts, gameId: 'nope', homeScore: 1, awayScore: 2 }),
      'EVENT_NOT_FOUND',
    );
    rejected(
      x.apply({ type: 'SetGameScore', ts, gameId: 'G1', homeScore: -1, awayScore: 2 }),
      'VALIDATION_FAILED',
    );
    assert.equal(x.catalogVersion, v);
    const evs = ok(x.apply({ type: 'SetGameScore', ts: ts + 5, gameId: 'G1', homeScore: 21, awayScore: 17 }));
    assert.deepEqual(evs, [{ kind: 'CatalogChanged', eventIds: ['E1'], marketIds: [] }]);
    assert.equal(x.game('G1')!.homeScore, 21);
    assert.equal(x.event('E1')!.updatedAt, ts + 5);
    assert.equal(x.catalogVersion, v + 1);
    assert.equal('period' in x.game('G1')!, false, 'no clock until one is given');
  });
  test('game clock', () => {
    const x = setup();
    const score = { type: 'SetGameScore', ts, gameId: 'G1', homeScore: 3, awayScore: 0 } as const;
    for (const bad of [0, 100, 1.5, -1]) rejected(x.apply({ ...score, period: bad }), 'VALIDATION_FAILED');
    for (const bad of ['12', '1:60', 'a:00', '1234:00', ''])
      rejected(x.apply({ ...score, timeRemaining: bad }), 'VALIDATION_FAILED');
    assert.equal(x.game('G1')!.homeScore, null, 'a rejected clock changes nothing');
    ok(x.apply({ ...score, period: 2, timeRemaining: '12:05' }));
    assert.deepEqual([x.game('G1')!.period, x.game('G1')!.timeRemaining], [2, '12:05']);
    // a score without a clock keeps the clock
    ok(x.apply({ ...score, homeScore: 7 }));
    assert.deepEqual(
      [x.game('G1')!.homeScore, x.game('G1')!.period, x.game('G1')!.timeRemaining],
      [7, 2, '12:05'],
    );
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.equal(y.hash(), x.hash());
    assert.equal(y.game('G1')!.timeRemaining, '12:05');
  });
  test('market status', () => {
    const x = setup();
    rejected(
      x.apply({ type: 'SetMarketStatus', ts, marketId: 'nope', status: 'CLOSED' }),
      'MARKET_NOT_FOUND',
    );
    rejected(x.apply({ type: 'SetMarketStatus', ts, marketId: 'M1', status: 'OPEN' }), 'INVALID_TRANSITION');
    rejected(
      x.apply({ type: 'SetMarketStatus', ts, marketId: 'M1', status: 'SETTLED' as never }),
      'VALIDATION_FAILED',
    );
    ok(x.apply({ type: 'SetMarketStatus', ts, marketId: 'M1', status: 'CLOSED' }));
    assert.equal(x.market('M1')!.status, 'CLOSED');
    ok(x.apply({ type: 'SetMarketStatus', ts, marketId: 'M1', status: 'OPEN' }));
    ok(x.apply({ type: 'SetMarketStatus', ts, marketId: 'M1', status: 'CLOSED' }));
    ok(x.apply({ type: 'SettleMarket', ts, marketId: 'M1', result: 'PUSH' }));
    rejected(x.apply({ type: 'SetMarketStatus', ts, marketId: 'M1', status: 'OPEN' }), 'ALREADY_SETTLED');
  });
});

describe('sequence numbers', () => {
  test('applySeq sets lastSeq only on acceptance', () => {
    const x = new Exchange();
    ok(x.applySeq(41, { type: 'CreateLeague', ts, code: 'X', name: 'x' }));
    assert.equal(x.lastSeq, 41);
    rejected(x.applySeq(42, { type: 'CreateLeague', ts, code: 'X', name: 'x' }), 'ALREADY_EXISTS');
    assert.equal(x.lastSeq, 41);
    ok(x.apply({ type: 'CreateAccount', ts, accountId: 'a' }));
    assert.equal(x.lastSeq, 42);
    rejected(x.apply({ type: 'Nope', ts } as never), 'VALIDATION_FAILED');
    rejected(x.apply({ type: 'CreateAccount', ts: Number.NaN, accountId: 'b' }), 'VALIDATION_FAILED');
  });
});
