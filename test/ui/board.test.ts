// The board's choices (ui/src/main-lines.ts, ui/src/board-order.ts): which spread and total are the
// main lines, and which games are listed in what order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventWire, MarketWire } from '../../ui/src/api.ts';
import { boardOrder } from '../../ui/src/board-order.ts';
import { lineKind, mainLines, mid } from '../../ui/src/main-lines.ts';

function market(
  id: string,
  type: string,
  bid0: number | null,
  bid1: number | null,
  status = 'OPEN',
): MarketWire {
  const level = (p: number | null) => (p === null ? [] : [{ price: p, qty: 10 }]);
  return {
    id,
    type,
    description: id,
    status,
    eventId: 'e',
    strike: null,
    volume: 0,
    outcomeIds: ['a', 'b'],
    outcomes: [],
    book: {
      // bids: outcome 0's bids; asks: outcome 1's bids seen from outcome 0 (1 − p).
      bids: level(bid0),
      asks: bid1 === null ? [] : level(Math.round((1 - bid1) * 1000) / 1000),
      outcomeLadders: [],
      seq: 1,
      asOf: '',
    },
  };
}

describe('main lines', () => {
  it('knows the three kinds by code or name, and nothing else', () => {
    assert.equal(lineKind('MONEY'), 'MONEY');
    assert.equal(lineKind('Moneyline'), 'MONEY');
    assert.equal(lineKind('spread'), 'SPREAD');
    assert.equal(lineKind('TOTAL'), 'TOTAL');
    assert.equal(lineKind('MONEY_1H'), undefined);
    assert.equal(lineKind('YES_NO'), undefined);
  });

  it('mid is outcome 0’s price between the two best offers', () => {
    assert.equal(mid(market('m', 'MONEY', 0.4, 0.5)), 0.45);
    assert.equal(mid(market('m', 'MONEY', null, null)), undefined);
  });

  it('picks the spread and total nearest even, open ones only', () => {
    const lines = mainLines([
      market('ml', 'MONEY', 0.7, 0.28),
      market('s1', 'SPREAD', 0.3, 0.68),
      market('s2', 'SPREAD', 0.49, 0.49),
      market('s3', 'SPREAD', 0.5, 0.5, 'CLOSED'),
      market('t1', 'TOTAL', 0.45, 0.5),
      market('t2', 'TOTAL', null, null),
    ]);
    assert.equal(lines.MONEY?.id, 'ml');
    assert.equal(lines.SPREAD?.id, 's2');
    assert.equal(lines.TOTAL?.id, 't1');
  });
});

describe('board order', () => {
  const team = (name: string, symbol: string) => ({ id: symbol, name, symbol });
  const ev = (id: string, status: string, start: string, league = 'NBA', game = true): EventWire => ({
    id,
    type: 'Game',
    status,
    description: `${id} game`,
    league,
    scheduledStart: start,
    marketIds: [],
    ...(game
      ? { game: { homeTeam: team(`Home ${id}`, `H${id}`), awayTeam: team(`Away ${id}`, `A${id}`), status } }
      : {}),
  });
  const events = [
    ev('1', 'OPEN_PREGAME', '2026-01-01T02:00:00Z'),
    ev('2', 'OPEN_INGAME', '2026-01-01T03:00:00Z'),
    ev('3', 'OPEN_PREGAME', '2026-01-01T01:00:00Z', 'NFL'),
    ev('4', 'DELAYED', '2026-01-01T00:00:00Z'),
    ev('5', 'OPEN_PREGAME', '2026-01-01T00:30:00Z', 'NBA', false),
  ];

  it('live first, then by start; futures left out', () => {
    assert.deepEqual(
      boardOrder(events, '', '').map((e) => e.id),
      ['4', '2', '3', '1'],
    );
  });

  it('filters by league and by team name or symbol, in any case', () => {
    assert.deepEqual(
      boardOrder(events, 'NFL', '').map((e) => e.id),
      ['3'],
    );
    assert.deepEqual(
      boardOrder(events, '', 'away 1').map((e) => e.id),
      ['1'],
    );
    assert.deepEqual(
      boardOrder(events, '', 'h2').map((e) => e.id),
      ['2'],
    );
  });
});
