// The import file's schema (src/catalog/import-schema.ts): the published copy in docs/ is the one
// the importer validates with, and each kind of bad field gets its sentence at its path, in the
// file's order; the second pass (references, duplicates) runs only on rows the schema accepted.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { importSchema, parseSchedule } from '../../src/catalog/import.ts';

const league = { code: 'NFL', name: 'National Football League' };
const team = (symbol: string) => ({ league: 'NFL', name: symbol, shortName: symbol, symbol, mascot: symbol });
const game = {
  league: 'NFL',
  scheduledStart: '2026-11-29T18:00:00Z',
  game: { home: 'BUF', away: 'KC' },
  markets: [{ type: 'MONEY' }],
};
const file = (events: unknown[], more: Record<string, unknown> = {}) => ({
  version: 1,
  leagues: [league],
  teams: [team('BUF'), team('KC')],
  events,
  ...more,
});

describe('import schema', () => {
  test('docs/import-schema.json is the schema the importer validates with', () => {
    const published = JSON.parse(
      readFileSync(new URL('../../docs/import-schema.json', import.meta.url), 'utf8'),
    );
    assert.deepEqual(published, JSON.parse(JSON.stringify(importSchema)));
  });

  test('each bad field has its sentence at its path, one per field, in file order', () => {
    const { errors, commands } = parseSchedule(
      file(
        [
          { ...game, id: 'not-a-uuid', status: 'FINAL' },
          { ...game, scheduledStart: '2026-11-29T18:00:00' },
          {
            ...game,
            markets: [
              { type: 'SPREAD', strike: 'x' },
              { type: 'TOTAL', strike: -3 },
            ],
          },
          {
            ...game,
            markets: [
              { type: 'TOTAL', strike: 1000.5 },
              { type: 'MONEY', strike: 1 },
            ],
          },
          { ...game, game: { home: 'BUF' } },
          { type: 'Future', league: 'NFL', scheduledStart: '2027-01-01T00:00:00Z', game: {}, markets: [] },
          {
            ...game,
            markets: [{ type: 'YES_NO', outcomes: [{ description: ' ' }, { description: 'No', id: 5 }] }],
          },
        ],
        {
          leagues: [league, { code: 'N', name: 'x' }],
          teams: [team('BUF'), team('KC'), { ...team('TOOLONGSYM') }],
        },
      ),
    );
    assert.deepEqual(
      errors.map((e) => [e.row, e.path, e.message]),
      [
        [1, 'leagues[1].code', 'code must be 2–16 upper-case letters, digits or _'],
        [2, 'teams[2].symbol', "symbol must be 1–8 letters, digits or & . ' -"],
        [0, 'events[0].id', 'id must be a UUID'],
        [
          0,
          'events[0].status',
          'status must be INITIAL or OPEN_PREGAME (later statuses are set through the admin API)',
        ],
        [
          1,
          'events[1].scheduledStart',
          'bad date: scheduledStart must be ISO 8601 with a time zone, e.g. "2026-11-29T18:00:00Z"',
        ],
        [
          2,
          'events[2].markets[0].strike',
          'bad strike: a SPREAD needs a numeric strike in half points (e.g. -2.5, 47.5)',
        ],
        [2, 'events[2].markets[1].strike', 'bad strike: a TOTAL strike must be positive'],
        [3, 'events[3].markets[0].strike', 'bad strike: out of range'],
        [3, 'events[3].markets[1].strike', 'bad strike: a MONEY market has no strike'],
        [4, 'events[4].game.away', 'a Game needs game: {home, away} (team symbols or ids)'],
        [5, 'events[5].description', 'a Future or a Tournament needs a description'],
        [5, 'events[5].game', 'only a Game has a game'],
        [6, 'events[6].markets[0].outcomes[0].description', 'an outcome needs a description'],
        [6, 'events[6].markets[0].outcomes[1].id', 'id must be a UUID'],
      ],
    );
    // Only the good rows made commands: the league, the two good teams, no event.
    assert.deepEqual(
      commands.map((c) => c.type),
      ['CreateLeague', 'CreateTeam', 'CreateTeam'],
    );
  });

  test('the second pass sees only rows the schema accepted', () => {
    // events[0] names an unknown league and has a bad date: the schema reports the date, and the
    // unknown league (a reference) is not looked for in a row already refused.
    const { errors } = parseSchedule(
      file([
        { ...game, league: 'XFL', scheduledStart: 'soon' },
        { ...game, league: 'XFL' },
      ]),
    );
    assert.deepEqual(
      errors.map((e) => [e.path, e.message]),
      [
        [
          'events[0].scheduledStart',
          'bad date: scheduledStart must be ISO 8601 with a time zone, e.g. "2026-11-29T18:00:00Z"',
        ],
        ['events[1].league', 'unknown league "XFL"'],
      ],
    );
  });

  test('the file itself: not an object, unknown fields, another version, a section not an array', () => {
    assert.deepEqual(parseSchedule('x').errors, [
      {
        row: -1,
        path: '',
        message: 'the file must hold a JSON object with leagues, teams and events arrays',
      },
    ]);
    assert.deepEqual(parseSchedule({ version: 2, extra: 1, events: [{}] }).errors, [
      { row: -1, path: 'extra', message: 'unknown top-level field "extra"' },
      { row: -1, path: 'version', message: 'unsupported version (this server reads version 1)' },
    ]);
    const r = parseSchedule({ leagues: [league], teams: {} });
    assert.deepEqual(r.errors, [{ row: -1, path: 'teams', message: 'teams must be an array' }]);
    assert.equal(r.accepted.leagues, 1, 'the other sections are still read');
  });

  test('any well-formed UUID is an id (docs/http.md "Identifiers")', () => {
    const { errors, commands } = parseSchedule(
      file([{ ...game, id: 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF' }], {
        teams: [{ ...team('BUF'), id: '00000000-0000-0000-0000-000000000001' }, team('KC')],
      }),
    );
    assert.deepEqual(errors, []);
    assert.equal(commands.length, 4);
  });
});
