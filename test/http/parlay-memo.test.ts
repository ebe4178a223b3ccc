// The parlay route's per-quote helpers (src/http/routes/parlay-memo.ts): an offer's body is its
// parts around the id and expiry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { offerBody } from '../../src/http/routes/parlay-memo.ts';

test('an offer body is its parts around id and expiry, UTF-8 preserved', () => {
  const parts = {
    head: Buffer.from('","price":"0.25000","expiresAt":"'),
    tail: Buffer.from('","legs":[{"description":"Montréal – “Canadiens”"}]}]'),
  };
  const id = '0190a0b0-c0d0-4e0f-8a0b-0c0d0e0f0a0b';
  const exp = '2026-11-21T17:00:07.000Z';
  const body = offerBody(parts, id, exp);
  const expected = `[{"id":"${id}","price":"0.25000","expiresAt":"${exp}","legs":[{"description":"Montréal – “Canadiens”"}]}]`;
  assert.equal(body.toString('utf8'), expected);
  assert.equal(body.length, Buffer.byteLength(expected));
  assert.deepEqual(JSON.parse(body.toString('utf8'))[0].legs[0].description, 'Montréal – “Canadiens”');
});
