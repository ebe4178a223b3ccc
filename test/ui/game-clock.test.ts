// How the board reads a running game's clock (ui/src/game-clock.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clockText } from '../../ui/src/game-clock.ts';

describe('game clock text', () => {
  it('names the period in the league’s words, with the time left', () => {
    assert.equal(clockText('NFL', 2, '12:05'), 'Q2 12:05');
    assert.equal(clockText('NBA', 4, '0:30'), 'Q4 0:30');
    assert.equal(clockText('NHL', 3, '4:10'), 'P3 4:10');
    assert.equal(clockText('EPL', 1, '31:00'), '1st half 31:00');
    assert.equal(clockText('NCAAB', 2, '5:00'), '2nd half 5:00');
    assert.equal(clockText('UFC', 3, '1:20'), 'Round 3 1:20');
    assert.equal(clockText('XFL', 5, '2:00'), 'Period 5 2:00');
  });
  it('innings and holes have no clock; an unknown period shows nothing', () => {
    assert.equal(clockText('MLB', 7, null), 'Inning 7');
    assert.equal(clockText('PGA', 12), 'Hole 12');
    assert.equal(clockText('NFL', null, '12:00'), '');
    assert.equal(clockText('NFL', undefined), '');
  });
});
