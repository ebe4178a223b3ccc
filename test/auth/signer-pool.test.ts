// The signing pool (src/auth/signer.ts) starts its threads with the first signature, signs what
// the inline signer signs, and refuses work once closed.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { InlineSigner, type SignerKey, WorkerPoolSigner } from '../../src/auth/signer.ts';

test('no thread before the first signature; the pool then signs as the inline signer does', async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key: SignerKey = {
    kid: 'k1',
    alg: 'RS256',
    privateKey,
    privateJwk: privateKey.export({ format: 'jwk' }) as SignerKey['privateJwk'],
  };
  const pool = new WorkerPoolSigner(2);
  // The pool's threads are unref'd (they never keep a process alive): hold the loop open here.
  const alive = setInterval(() => {}, 1000);
  try {
    assert.equal(pool.threads, 0);
    const input = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0';
    const [a, b] = await Promise.all([pool.sign(key, input), pool.sign(key, input)]);
    assert.equal(pool.threads, 2);
    // RSASSA-PKCS1-v1_5 is deterministic: the same key and input give the same signature.
    const inline = await new InlineSigner().sign(key, input);
    assert.equal(a, inline);
    assert.equal(b, inline);
  } finally {
    clearInterval(alive);
    await pool.close();
  }
  await assert.rejects(pool.sign(key, 'x.y'), /closed/);
});
