import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseSchedule } from '../../src/catalog/import.ts';
import { teamId } from '../../src/catalog/leagues.ts';
import type { CommandInput } from '../../src/catalog/types.ts';
import { buildDemoSlate } from '../../src/demo/slate.ts';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command } from '../../src/exchange/types.ts';

/** The example of docs/import-format.md, so the documentation cannot drift from the parser. */
function docExample(): Record<string, unknown> {
  const md = readFileSync(new URL('../../docs/import-format.md', import.meta.url), 'utf8');
  const m = /## Example\s+```json\n([\s\S]*?)\n```/.exec(md);
  assert.ok(m, 'docs/import-format.md has a json example');
  return JSON.parse(m[1]!);
}

type Create = Extract<CommandInput, { type: 'CreateEvent' }>;

function apply(x: Exchange, cmds: CommandInput[], ts = 1_800_000_000_000): void {
  for (const c of cmds) {
    const r = x.apply({ ...c, ts } as Command);
    assert.ok(r.ok, `${c.type} rejected: ${!r.ok && r.code} ${!r.ok && r.message}`);
  }
}

describe('schedule import', () => {
  test('accepts the documented example', () => {
    const { commands, errors, accepted } = parseSchedule(docExample());
    assert.deepEqual(errors, []);
    assert.deepEqual(accepted, { leagues: 2, teams: 4, events: 3, markets: 7 });
    assert.deepEqual(
      commands.map((c) => c.type),
      [
        'CreateLeague',
        'CreateLeague',
        'CreateTeam',
        'CreateTeam',
        'CreateTeam',
        'CreateTeam',
        'CreateEvent',
        'CreateEvent',
        'CreateEvent',
      ],
    );
    const [game, cfl, future] = commands.filter((c): c is Create => c.type === 'CreateEvent');
    assert.equal(game!.event.description, 'Kansas City Chiefs @ Buffalo Bills');
    assert.equal(game!.event.scheduledStart, Date.UTC(2026, 10, 29, 18, 0));
    assert.equal(game!.event.status, 'OPEN_PREGAME');
    assert.deepEqual(game!.game && { h: game!.game.homeTeamId, a: game!.game.awayTeamId }, {
      h: teamId('NFL', 'BUF'),
      a: teamId('NFL', 'KC'),
    });
    assert.deepEqual(
      game!.markets.map((m) => m.outcomes.map((o) => o.description)),
      [
        ['BUF', 'KC'],
        ['BUF -2.5', 'KC +2.5'],
        ['BUF -3', 'KC +3'],
        ['Over 47.5', 'Under 47.5'],
      ],
    );
    assert.equal(game!.markets[3]!.description, 'KC @ BUF Total 47.5');
    assert.equal(cfl!.event.id, '6d0f5b6e-3c1a-4c8e-9a61-0f2b3c4d5e6f');
    assert.equal(cfl!.event.status, 'INITIAL');
    assert.equal(cfl!.event.scheduledStart, Date.UTC(2026, 11, 6, 0, 30));
    assert.equal(cfl!.markets[1]!.outcomes[0].competitorTeamId, teamId('CFL', 'TOR'));
    assert.equal(future!.game, null);
    assert.deepEqual(
      future!.markets[0]!.outcomes.map((o) => o.description),
      ['Yes', 'No'],
    );
    // the commands are accepted by the real exchange
    apply(new Exchange(), commands);
  });

  test('is deterministic, and a second import against the result reports duplicates only', () => {
    const a = parseSchedule(docExample());
    assert.deepEqual(parseSchedule(docExample()), a);
    const x = new Exchange();
    apply(x, a.commands);
    const again = parseSchedule(docExample(), x);
    assert.deepEqual(again.commands, [], 'restated leagues and teams are skipped, events are duplicates');
    assert.equal(again.errors.length, 3);
    assert.ok(again.errors.every((e) => e.path.startsWith('events[') && /duplicate id/.test(e.message)));
  });

  test('reports every kind of bad row with its row and path', () => {
    const doc = docExample();
    const events = doc.events as Record<string, unknown>[];
    const base = events[0]!;
    const bad = [
      { ...base, league: 'XFL' },
      { ...base, game: { home: 'BUFF', away: 'KC' } },
      { ...base, scheduledStart: '2026-11-29 18:00' },
      { ...base, scheduledStart: '2026-02-30T18:00:00Z' },
      { ...events[1], scheduledStart: '2026-12-12T19:30:00Z' }, // same explicit id as row 1
      {
        ...base,
        scheduledStart: '2026-11-30T18:00:00Z',
        markets: [{ type: 'MONEY', outcomes: [{ description: 'A' }] }],
      },
      { ...base, scheduledStart: '2026-12-01T18:00:00Z', markets: [{ type: 'SPREAD', strike: -2.4 }] },
      { ...base, scheduledStart: '2026-12-02T18:00:00Z', markets: [{ type: 'TOTAL' }] },
      { ...base, scheduledStart: '2026-12-03T18:00:00Z', markets: [{ type: 'MONEY', strike: 3.5 }] },
      { ...base, scheduledStart: '2026-12-04T18:00:00Z', markets: [{ type: 'OVER_UNDER' }] },
      { ...base, scheduledStart: '2026-12-05T18:00:00Z', status: 'FINAL' },
      { ...base, scheduledStart: '2026-12-06T18:00:00Z', game: { home: 'BUF', away: 'BUF' } },
      {
        ...base,
        scheduledStart: '2026-12-07T18:00:00Z',
        markets: [
          { type: 'TOTAL', strike: 40.5 },
          { type: 'TOTAL', strike: 40.5 },
        ],
      },
      { type: 'Future', league: 'NFL', scheduledStart: '2027-02-14T23:30:00Z', markets: [] },
      { ...base, type: 'Parlay' },
      { ...base, scheduledStart: '2026-12-08T18:00:00Z', markets: [{ type: 'TEAM_TOTAL', strike: 20.5 }] },
      'not an event',
    ];
    const { commands, errors } = parseSchedule({
      ...doc,
      teams: [
        ...(doc.teams as unknown[]),
        { league: 'NFL', name: 'Buffalo Bills', shortName: 'Bills', symbol: 'BUF', mascot: 'Bills' }, // duplicate
        { league: 'AFL', name: 'X', shortName: 'X', symbol: 'X', mascot: 'X' }, // unknown league
        { league: 'NFL', name: '', shortName: 'X', symbol: 'X', mascot: 'X' }, // empty name
      ],
      leagues: [
        ...(doc.leagues as unknown[]),
        { code: 'nfl', name: 'lower' },
        { code: 'NFL', name: 'Other name' },
      ],
      events: [...events, ...bad],
      extra: true,
    });
    const at = (path: string, re: RegExp) =>
      assert.ok(
        errors.some((e) => e.path === path && re.test(e.message)),
        `expected ${path} ~ ${re}, got ${JSON.stringify(errors, null, 1)}`,
      );
    const n = events.length;
    at('extra', /unknown top-level field/);
    at('leagues[2].code', /upper-case/);
    at('leagues[3].name', /already exists/);
    at('teams[4].id', /duplicate id/);
    at('teams[5].league', /unknown league/);
    at('teams[6].name', /non-empty/);
    at(`events[${n}].league`, /unknown league "XFL"/);
    at(`events[${n + 1}].game.home`, /unknown team "BUFF"/);
    at(`events[${n + 2}].scheduledStart`, /bad date/);
    at(`events[${n + 3}].scheduledStart`, /bad date/);
    at(`events[${n + 4}].id`, /duplicate id/);
    at(`events[${n + 5}].markets[0].outcomes`, /exactly two outcomes/);
    at(`events[${n + 6}].markets[0].strike`, /bad strike/);
    at(`events[${n + 7}].markets[0].strike`, /bad strike/);
    at(`events[${n + 8}].markets[0].strike`, /has no strike/);
    at(`events[${n + 9}].markets[0].type`, /type must be one of/);
    at(`events[${n + 10}].status`, /INITIAL or OPEN_PREGAME|OPEN_PREGAME or INITIAL/);
    at(`events[${n + 11}].game.away`, /different teams/);
    at(`events[${n + 12}].markets[1]`, /duplicate market TOTAL 40.5/);
    at(`events[${n + 13}].description`, /needs a description/);
    at(`events[${n + 14}].type`, /type must be one of/);
    at(`events[${n + 15}].markets[0].outcomes`, /needs its two outcomes/);
    at(`events[${n + 16}]`, /must be an object/);
    // every error names its row, and rows match the path index
    for (const e of errors) {
      const m = /^(?:leagues|teams|events)\[(\d+)\]/.exec(e.path);
      assert.equal(e.row, m ? Number(m[1]) : -1, e.path);
    }
    // no bad event row produced a command; the good rows still did
    const created = commands.filter((c): c is Create => c.type === 'CreateEvent');
    assert.equal(created.length, events.length);
  });

  test('events may reference teams already in the exchange; restated teams are skipped', () => {
    const x = new Exchange();
    const slate = buildDemoSlate({ seed: 's', now: Date.UTC(2026, 10, 21), leagues: [] });
    apply(x, slate.commands);
    const { commands, errors } = parseSchedule(
      {
        teams: [{ league: 'NFL', name: 'Buffalo Bills', shortName: 'Bills', symbol: 'BUF', mascot: 'Bills' }],
        events: [
          {
            league: 'NFL',
            scheduledStart: '2026-12-06T13:00:00-05:00',
            game: { home: 'BUF', away: teamId('NFL', 'NE') },
            markets: [{ type: 'MONEY' }, { type: 'TOTAL', strike: 41 }],
          },
          {
            league: 'NFL',
            scheduledStart: '2026-12-06T18:00:00Z',
            game: { home: 'BUF', away: 'LAL' },
            markets: [],
          },
        ],
      },
      x,
    );
    assert.deepEqual(
      errors.map((e) => e.path),
      ['events[1].game.away'],
      'LAL is an NBA team, not NFL',
    );
    assert.deepEqual(
      commands.map((c) => c.type),
      ['CreateEvent'],
    );
    const ev = commands[0] as Create;
    assert.equal(ev.event.description, 'New England Patriots @ Buffalo Bills');
    assert.equal(ev.event.scheduledStart, Date.UTC(2026, 11, 6, 18, 0));
    apply(x, commands);
    assert.equal(x.event(ev.event.id)!.marketIds.length, 2);
  });

  test('rejects a file that is not an object, or of another version', () => {
    assert.equal(parseSchedule([]).errors[0]!.row, -1);
    assert.match(parseSchedule({ version: 2 }).errors[0]!.message, /version/);
    assert.match(parseSchedule({ events: {} }).errors[0]!.message, /must be an array/);
  });
});
