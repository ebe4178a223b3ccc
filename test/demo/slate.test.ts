import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LEAGUES } from '../../src/catalog/leagues.ts';
import type { CommandInput } from '../../src/catalog/types.ts';
import { leagueModel } from '../../src/demo/rating-model.ts';
import { marketResult } from '../../src/demo/settle.ts';
import { buildDemoSlate } from '../../src/demo/slate.ts';
import { EVENT_STATUSES } from '../../src/exchange/types.ts';
import { isUuid } from '../../src/ids.ts';

const NOW = Date.UTC(2026, 10, 21, 17, 3, 27);
const slate = buildDemoSlate({ seed: 'test-seed', now: NOW });
const DAY = 86_400_000;
type Create = Extract<CommandInput, { type: 'CreateEvent' }>;
const creates = slate.commands.filter((c): c is Create => c.type === 'CreateEvent');

describe('demo slate', () => {
  test('is deterministic for a given seed and now, and differs for another seed', () => {
    const again = buildDemoSlate({ seed: 'test-seed', now: NOW });
    assert.deepEqual(again.commands, slate.commands);
    assert.equal(JSON.stringify(again.games), JSON.stringify(slate.games));
    const other = buildDemoSlate({ seed: 'other-seed', now: NOW });
    assert.notDeepEqual(other.commands, slate.commands);
  });

  test('creates the ten leagues and every team, before any event', () => {
    const leagues = slate.commands.filter((c) => c.type === 'CreateLeague');
    assert.deepEqual(
      leagues.map((c) => (c.type === 'CreateLeague' ? c.code : '')),
      ['NFL', 'NBA', 'MLB', 'NHL', 'NCAAF', 'NCAAB', 'MLS', 'EPL', 'UFC', 'PGA'],
    );
    const teams = slate.commands.filter((c) => c.type === 'CreateTeam');
    const want = LEAGUES.reduce((n, l) => n + l.teams.length, 0);
    assert.equal(teams.length, want);
    const count = (code: string) => LEAGUES.find((l) => l.code === code)!.teams.length;
    assert.equal(count('NFL'), 32);
    assert.equal(count('NBA'), 30);
    assert.equal(count('MLB'), 30);
    assert.equal(count('NHL'), 32);
    const firstEvent = slate.commands.findIndex((c) => c.type === 'CreateEvent');
    const lastTeam = slate.commands.findLastIndex((c) => c.type === 'CreateTeam');
    assert.ok(lastTeam < firstEvent);
    // symbols unique within a league, ids unique overall
    for (const l of LEAGUES) assert.equal(new Set(l.teams.map((t) => t.symbol)).size, l.teams.length, l.code);
    const ids = teams.map((c) => (c.type === 'CreateTeam' ? c.team.id : ''));
    assert.equal(new Set(ids).size, ids.length);
  });

  test('has at least 300 events within the coming two weeks, every league present', () => {
    const games = slate.games.filter((g) => g.type === 'Game');
    const upcoming = games.filter((g) => g.scheduledStart >= NOW && g.scheduledStart <= NOW + 14 * DAY);
    assert.ok(upcoming.length >= 300, `only ${upcoming.length} upcoming events`);
    for (const l of LEAGUES)
      assert.ok(
        upcoming.some((g) => g.league === l.code),
        `no ${l.code} games`,
      );
    assert.ok(games.every((g) => g.scheduledStart >= NOW - DAY && g.scheduledStart <= NOW + 14 * DAY));
    assert.ok(
      games.every((g) => g.scheduledStart % 300_000 === 0),
      'start times aligned to 5 minutes',
    );
  });

  test('has events in every status, with a real lifecycle behind each', () => {
    const statuses = new Set(slate.games.map((g) => g.status));
    for (const s of EVENT_STATUSES) assert.ok(statuses.has(s), `no ${s} event`);
    const open = slate.games.filter((g) => g.status === 'OPEN_PREGAME').length;
    assert.ok(open > slate.games.length / 2, 'most events are OPEN_PREGAME');
    for (const g of slate.games) {
      const create = creates.find((c) => c.event.id === g.eventId)!;
      const path = slate.commands
        .filter((c) => c.type === 'SetEventStatus' && c.eventId === g.eventId)
        .map((c) => (c.type === 'SetEventStatus' ? c.status : ''));
      const expect: Record<string, string[]> = {
        INITIAL: [],
        OPEN_PREGAME: [],
        CLOSED_PREGAME: ['CLOSED_PREGAME'],
        OPEN_INGAME: ['CLOSED_PREGAME', 'OPEN_INGAME'],
        DELAYED: ['CLOSED_PREGAME', 'OPEN_INGAME', 'DELAYED'],
        FINAL: ['CLOSED_PREGAME', 'OPEN_INGAME', 'FINAL'],
        CANCELED: ['CANCELED'],
      };
      assert.equal(create.event.status, g.status === 'INITIAL' ? 'INITIAL' : 'OPEN_PREGAME');
      assert.deepEqual(path, expect[g.status], `${g.status} ${g.description}`);
      // timing matches the status
      const end = g.scheduledStart + leagueModel(g.league).durationMin * 60_000;
      if (g.type !== 'Game') continue;
      if (g.status === 'FINAL') assert.ok(end <= NOW);
      if (g.status === 'OPEN_INGAME' || g.status === 'DELAYED')
        assert.ok(g.scheduledStart <= NOW && NOW < end);
      if (g.status === 'OPEN_PREGAME' || g.status === 'INITIAL' || g.status === 'CLOSED_PREGAME')
        assert.ok(g.scheduledStart > NOW);
    }
  });

  test('finished games carry a score, every market closed and settled from it', () => {
    const finals = slate.games.filter((g) => g.status === 'FINAL');
    assert.ok(finals.length >= 4);
    for (const g of finals) {
      assert.ok(g.score && g.score.homeScore >= 0 && g.score.awayScore >= 0);
      const score = slate.commands.find((c) => c.type === 'SetGameScore' && c.gameId === g.gameId);
      assert.deepEqual(score, {
        type: 'SetGameScore',
        gameId: g.gameId,
        homeScore: g.score.homeScore,
        awayScore: g.score.awayScore,
      });
      for (const m of g.markets) {
        const close = slate.commands.findIndex(
          (c) => c.type === 'SetMarketStatus' && c.marketId === m.marketId && c.status === 'CLOSED',
        );
        const settle = slate.commands.findIndex(
          (c) => c.type === 'SettleMarket' && c.marketId === m.marketId,
        );
        assert.ok(close >= 0 && settle > close, 'closed, then settled');
        const cmd = slate.commands[settle]!;
        assert.equal(cmd.type === 'SettleMarket' && cmd.result, marketResult(g.league, m, g.score));
      }
    }
  });

  test('every game has MONEY, three SPREAD and three TOTAL markets with proper outcomes', () => {
    for (const c of creates.filter((c) => c.event.type === 'Game')) {
      assert.ok(c.game);
      const types = c.markets.map((m) => m.type);
      assert.deepEqual(types, ['MONEY', 'SPREAD', 'SPREAD', 'SPREAD', 'TOTAL', 'TOTAL', 'TOTAL']);
      const home = slate.commands.find((x) => x.type === 'CreateTeam' && x.team.id === c.game!.homeTeamId);
      const away = slate.commands.find((x) => x.type === 'CreateTeam' && x.team.id === c.game!.awayTeamId);
      assert.ok(home?.type === 'CreateTeam' && away?.type === 'CreateTeam');
      assert.equal(c.event.description, `${away.team.name} @ ${home.team.name}`);
      for (const m of c.markets) {
        assert.ok(isUuid(m.id) && isUuid(m.outcomes[0].id) && isUuid(m.outcomes[1].id));
        if (m.type === 'MONEY') {
          assert.equal(m.strike, null);
          assert.deepEqual(
            m.outcomes.map((o) => o.description),
            [home.team.symbol, away.team.symbol],
          );
        } else {
          assert.ok(m.strike !== null && Math.abs(m.strike % 1) === 0.5, 'half-point strike');
        }
        if (m.type === 'SPREAD') {
          const s = m.strike!;
          const fmt = (x: number) => (x > 0 ? `+${x}` : `${x}`);
          assert.deepEqual(
            m.outcomes.map((o) => o.description),
            [`${home.team.symbol} ${fmt(s)}`, `${away.team.symbol} ${fmt(-s)}`],
          );
        }
        if (m.type === 'TOTAL') {
          assert.deepEqual(
            m.outcomes.map((o) => o.description),
            [`Over ${m.strike}`, `Under ${m.strike}`],
          );
          assert.equal(m.outcomes[0].competitorTeamId, null);
        } else {
          assert.equal(m.outcomes[0].competitorTeamId, home.team.id);
          assert.equal(m.outcomes[1].competitorTeamId, away.team.id);
        }
      }
    }
  });

  test('a few Futures with one YES_NO market each', () => {
    const futures = creates.filter((c) => c.event.type === 'Future');
    assert.ok(futures.length >= 5);
    for (const f of futures) {
      assert.equal(f.game, null);
      assert.equal(f.markets.length, 1);
      assert.equal(f.markets[0]!.type, 'YES_NO');
      assert.deepEqual(
        f.markets[0]!.outcomes.map((o) => o.description),
        ['Yes', 'No'],
      );
      assert.match(f.event.description, /^Will .+ win .+\?$/);
    }
    assert.ok(
      futures.some((f) => f.event.description.includes('Super Bowl LXI')),
      'November 2026 → Super Bowl LXI',
    );
  });

  test('fair probabilities are consistent: monotone in the strike, MONEY between adjacent spreads', () => {
    for (const g of slate.games) {
      for (const m of g.markets) assert.ok(m.fair > 0 && m.fair < 1);
      if (g.type !== 'Game') continue;
      const money = g.markets.find((m) => m.type === 'MONEY')!.fair;
      const spreads = g.markets.filter((m) => m.type === 'SPREAD').sort((a, b) => a.strike! - b.strike!);
      const totals = g.markets.filter((m) => m.type === 'TOTAL').sort((a, b) => a.strike! - b.strike!);
      for (let i = 1; i < 3; i++) {
        assert.ok(spreads[i]!.fair > spreads[i - 1]!.fair, 'P(home covers) rises with the strike');
        assert.ok(totals[i]!.fair < totals[i - 1]!.fair, 'P(over) falls with the strike');
      }
      for (const s of spreads) {
        if (s.strike! < 0) assert.ok(s.fair < money, 'giving points is less likely than winning');
        if (s.strike! > 0) assert.ok(s.fair > money, 'getting points is more likely than winning');
      }
      // The middle strikes sit at the fair line: no side is a lock.
      assert.ok(spreads[1]!.fair > 0.3 && spreads[1]!.fair < 0.7);
      assert.ok(totals[1]!.fair > 0.3 && totals[1]!.fair < 0.7);
      assert.equal(slate.fairByMarket.get(spreads[1]!.marketId), spreads[1]!.fair);
    }
  });

  test('all ids are distinct UUIDs', () => {
    const ids: string[] = [];
    for (const c of creates) {
      ids.push(c.event.id);
      if (c.game) ids.push(c.game.id);
      for (const m of c.markets) ids.push(m.id, m.outcomes[0].id, m.outcomes[1].id);
    }
    assert.ok(ids.every(isUuid));
    assert.equal(new Set(ids).size, ids.length);
  });
});
