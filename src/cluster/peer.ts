// How processes of one PostgreSQL store recognise each other (docs/cluster.md "Peers"). Every
// process reads one random secret from the store (table cluster_peer, created by the first process
// that finds none); a request from one process to another carries `x-tickbook-peer`, an HMAC of the
// sending node's name and the request id under that secret. The receiver trusts what only a peer
// may say — the client address a replica forwards, a replica's cancel-on-disconnect — only when the
// HMAC checks. Anyone who can read the secret can read the signing keys as well, so a peer is
// exactly a process trusted with the store.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../store/types.ts';

export const PEER_HEADER = 'x-tickbook-peer';

export class PeerAuth {
  private constructor(private readonly secret: Buffer) {}

  /** Reads the store's peer secret, creating it when this is the first process. */
  static async load(q: Queryable): Promise<PeerAuth> {
    await q.query('INSERT INTO cluster_peer (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [
      randomBytes(32).toString('base64url'),
    ]);
    const r = await q.query<{ secret: string }>('SELECT secret FROM cluster_peer WHERE id = 1');
    return new PeerAuth(Buffer.from(r.rows[0]!.secret, 'base64url'));
  }

  /** The proof a request from `node` with id `requestId` carries. */
  sign(node: string, requestId: string): string {
    return createHmac('sha256', this.secret).update(`${node}\n${requestId}`).digest('base64url');
  }

  /** True when `proof` is this store's peer proof for `node` and `requestId`. */
  verify(
    proof: string | string[] | undefined,
    node: string | string[] | undefined,
    requestId: string | string[] | undefined,
  ): boolean {
    if (typeof proof !== 'string' || typeof node !== 'string' || typeof requestId !== 'string') return false;
    const want = Buffer.from(this.sign(node, requestId));
    const got = Buffer.from(proof);
    return got.length === want.length && timingSafeEqual(got, want);
  }
}
