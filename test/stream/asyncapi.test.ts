// The AsyncAPI document served at /asyncapi.json is valid AsyncAPI 3.0 by the official parser, and
// the frames the server really sends validate against the message schemas it declares.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Parser } from '@asyncapi/parser';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { asyncApiDocument } from '../../src/stream/asyncapi.ts';
import { schemas, serverMessages } from '../../src/stream/message-schemas.ts';
import { envelope, privateMmp } from '../../src/stream/messages.ts';

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ??
  AjvModule) as typeof AjvModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

describe('AsyncAPI document', () => {
  test('parses without errors with @asyncapi/parser', async () => {
    const doc = asyncApiDocument('http://localhost:8080');
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    const errors = diagnostics.filter((d) => d.severity === 0);
    assert.deepEqual(errors, []);
    assert.ok(document);
    assert.equal(document.version(), '3.0.0');
    const names = document
      .messages()
      .all()
      .map((m) => m.id());
    for (const n of Object.keys(serverMessages)) assert.ok(names.includes(n), n);
  });

  test('real frames validate against the declared payloads', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const [name, s] of Object.entries(schemas)) ajv.addSchema(s, `#/components/schemas/${name}`);
    const check = (name: string, frame: unknown) => {
      const v = ajv.compile(serverMessages[name]!.payload);
      assert.ok(v(frame), `${name}: ${ajv.errorsText(v.errors)}`);
    };
    const id = '01a20c00-0424-7006-9390-6b6596b47148';
    for (const e of [
      {
        kind: 'MmpTriggered' as const,
        accountId: id,
        eventId: id,
        currency: 'CASH' as const,
        qty: 120,
        net: -40,
        frozenUntil: 1_800_000_005_000,
        canceled: 3,
        ts: 1_800_000_000_000,
      },
      {
        kind: 'MmpTriggered' as const,
        accountId: id,
        eventId: id,
        currency: 'COIN' as const,
        qty: 5,
        net: 5,
        frozenUntil: null,
        canceled: 0,
        ts: 1,
      },
      { kind: 'MmpReset' as const, accountId: id, eventId: null, ts: 1_800_000_000_000 },
    ]) {
      check('mmp', JSON.parse(envelope('mmp', privateMmp(e), { journalSeq: 9 })));
    }
    check('bookTick', {
      type: 'PLACE',
      order: {
        id,
        price: 0.6,
        qty: 10,
        originalQty: 10,
        currency: 'CASH',
        marketId: id,
        outcomeId: id,
        status: 'RESTING',
        created_at: '2026-01-01T00:00:00.000Z',
      },
      fills: [],
      market: { id, description: 'x', status: 'OPEN', type: 'TOTAL', strike: 40.5, volume: 0 },
      seq: 3,
      journalSeq: 17,
      part: 1,
      parts: 1,
    });
    assert.throws(() => check('bookTick', { type: 'PLACE' }));
  });
});
