// Engine rejection codes → wire errors: every code the engine can reject with has a wire error of
// the same name, and the engine's default message is the wire message (docs/architecture.md).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCodes } from '../../src/errors.ts';
import { type RejectionCode, RejectionCodes } from '../../src/exchange/rejections.ts';
import { REJECTION_ERRORS } from '../../src/http/rejections.ts';
import { rejectionError } from '../../src/http/routes/exchange-common.ts';

test('each engine rejection maps to the wire code of the same name and message', () => {
  for (const code of Object.keys(RejectionCodes) as RejectionCode[]) {
    const wire = REJECTION_ERRORS[code];
    assert.equal(wire, code);
    assert.equal(ErrorCodes[wire].message, RejectionCodes[code], code);
    const err = rejectionError({ ok: false, code, message: RejectionCodes[code] });
    assert.equal(err.code, code);
    assert.equal(err.statusCode, ErrorCodes[wire].status);
  }
});

test('a code unknown to both registries leaves as VALIDATION_FAILED carrying it', () => {
  const err = rejectionError({ ok: false, code: 'SOMETHING_ELSE', message: 'm' });
  assert.equal(err.code, 'VALIDATION_FAILED');
  assert.deepEqual(err.details, [{ code: 'SOMETHING_ELSE' }]);
});
