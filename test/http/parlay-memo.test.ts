// The parlay route's per-quote helpers (src/http/routes/parlay-memo.ts): the expiry text is exactly
// Date#toISOString, and an offer's body is its parts around the id and expiry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExpiryText, offerBody } from '../../src/http/routes/parlay-memo.ts';

test('expiry text equals toISOString across seconds, years and the epoch', () => {
  const e = new ExpiryText();
  const times = [
    Date.UTC(2026, 10, 21, 17, 0, 0),
    Date.UTC(2026, 10, 21, 17, 0, 0) + 1,
    Date.UTC(2026, 10, 21, 17, 0, 0) + 999,
    Date.UTC(2026, 10, 21, 17, 0, 1),
    Date.UTC(2026, 11, 31, 23, 59, 59, 999),
    Date.UTC(2027, 0, 1),
    0,
    -1,
    -1001,
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    Date.UTC(10000, 0, 1, 0, 0, 0, 5),
    Date.UTC(-1, 5, 1, 0, 0, 0, 7),
  ];
  for (const ms of times) assert.equal(e.at(ms), new Date(ms).toISOString(), String(ms));
  for (let ms = Date.UTC(2026, 0, 1) - 2500; ms < Date.UTC(2026, 0, 1) + 2500; ms += 7)
    assert.equal(e.at(ms), new Date(ms).toISOString());
});

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
