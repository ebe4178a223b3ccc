// Where JWS signatures are computed. RSA-2048 signing costs ~0.45 ms of CPU per token on the
// reference machine, about 4x everything else a token request costs; run on the event loop it
// caps issuance at one core's worth of signatures and stalls every other route meanwhile. The
// pool moves signing onto worker threads, so the event loop keeps parsing requests while the
// workers sign on the other core(s) (docs/auth.md, "Performance"). ES256/EdDSA signatures cost
// ~40 µs, less than a round trip to a worker, so they are signed inline.

import { sign as cryptoSign, type KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { JWK } from 'jose';
import type { TokenAlg } from '../config.ts';

export interface SignerKey {
  kid: string;
  alg: TokenAlg;
  privateKey: KeyObject;
  privateJwk: JWK;
}

export interface Signer {
  /** The base64url signature of `input` (the JWS signing input) under `key`. */
  sign(key: SignerKey, input: string): Promise<string>;
  close(): Promise<void>;
}

/** Node's crypto.sign arguments for a JOSE algorithm (RFC 7518 §3, RFC 8037). */
function signBase64url(alg: TokenAlg, key: KeyObject, input: string): string {
  const data = Buffer.from(input, 'latin1');
  switch (alg) {
    case 'RS256':
      return cryptoSign('sha256', data, key).toString('base64url');
    case 'ES256':
      // JWS wants the raw r||s form, not DER (RFC 7518 §3.4).
      return cryptoSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    case 'EdDSA':
      return cryptoSign(null, data, key).toString('base64url');
  }
}

export class InlineSigner implements Signer {
  async sign(key: SignerKey, input: string): Promise<string> {
    return signBase64url(key.alg, key.privateKey, input);
  }
  async close(): Promise<void> {}
}

// The worker is plain JavaScript evaluated from a string, so it runs the same whether the
// process was started through tsx, the CLI shim or compiled output (no loader in the worker).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createPrivateKey, sign } = require('node:crypto');
const keys = new Map();
parentPort.on('message', (m) => {
  if (m.type === 'key') { keys.set(m.kid, { alg: m.alg, key: createPrivateKey({ key: m.jwk, format: 'jwk' }) }); return; }
  const k = keys.get(m.kid);
  try {
    const data = Buffer.from(m.input, 'latin1');
    let sig;
    if (k.alg === 'RS256') sig = sign('sha256', data, k.key);
    else if (k.alg === 'ES256') sig = sign('sha256', data, { key: k.key, dsaEncoding: 'ieee-p1363' });
    else sig = sign(null, data, k.key);
    parentPort.postMessage({ id: m.id, sig: sig.toString('base64url') });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String(e && e.message || e) });
  }
});
`;

interface Pending {
  resolve: (sig: string) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  inflight: number;
  kids: Set<string>;
}

export class WorkerPoolSigner implements Signer {
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  /**
   * The threads start with the first signature, not here: each is a V8 isolate of its own (tens of
   * MB resident), and a server that signs no token — a replica, an idle demo — never needs them
   * (docs/packaging.md, "Memory").
   */
  constructor(private readonly size: number) {
    if (!(size >= 1)) throw new RangeError('a signing pool needs at least one thread');
  }

  /** Threads started so far (0 until the first signature). */
  get threads(): number {
    return this.slots.length;
  }

  private start(): void {
    for (let i = 0; i < this.size; i++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      const slot: Slot = { worker, inflight: 0, kids: new Set() };
      worker.on('message', (m: { id: number; sig?: string; error?: string }) => {
        slot.inflight--;
        const p = this.pending.get(m.id);
        if (p === undefined) return;
        this.pending.delete(m.id);
        if (m.sig !== undefined) p.resolve(m.sig);
        else p.reject(new Error(`signing failed: ${m.error}`));
      });
      worker.on('error', (err) => {
        // A crashed worker fails what it held; the pool keeps serving from the others.
        for (const [id, p] of this.pending) {
          p.reject(err);
          this.pending.delete(id);
        }
      });
      // Idle workers must not keep the process alive (tests, CLI).
      worker.unref();
      this.slots.push(slot);
    }
  }

  sign(key: SignerKey, input: string): Promise<string> {
    if (this.closed) return Promise.reject(new Error('the signing pool is closed'));
    if (this.slots.length === 0) this.start();
    // Least-loaded worker: keeps both cores busy under bursts without a shared queue.
    let slot = this.slots[0]!; // start() made at least one (size ≥ 1)
    for (const s of this.slots) if (s.inflight < slot.inflight) slot = s;
    if (!slot.kids.has(key.kid)) {
      slot.worker.postMessage({ type: 'key', kid: key.kid, alg: key.alg, jwk: key.privateJwk });
      slot.kids.add(key.kid);
    }
    const id = this.nextId++;
    slot.inflight++;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, kid: key.kid, input });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}
