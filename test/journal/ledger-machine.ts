// A tiny deterministic state machine for the sequencer's own tests (failure injection, ordering),
// where the real Exchange would only add noise. Balances per key; 'Add' with a non-positive amount
// is rejected; 'Boom' throws (a state machine bug) after half-applying, as the fail-stop test needs.

import { createHash } from 'node:crypto';
import type { StateMachine } from '../../src/exchange/types.ts';

export type LedgerCmd = { type: 'Add'; key: string; n: number; ts: number } | { type: 'Boom'; ts: number };

export type LedgerResult = { ok: true; balance: number } | { ok: false; code: string };

export class LedgerMachine implements StateMachine<LedgerCmd, LedgerResult> {
  balances = new Map<string, number>();
  lastTs = 0;
  applied = 0;

  apply(cmd: LedgerCmd): LedgerResult {
    if (cmd.type === 'Boom') {
      this.balances.set('half', 1);
      throw new Error('boom');
    }
    if (!(cmd.n > 0)) return { ok: false, code: 'INVALID_AMOUNT' };
    const b = (this.balances.get(cmd.key) ?? 0) + cmd.n;
    this.balances.set(cmd.key, b);
    this.lastTs = cmd.ts;
    this.applied++;
    return { ok: true, balance: b };
  }

  snapshot(): Uint8Array {
    const entries = [...this.balances].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return new TextEncoder().encode(JSON.stringify({ entries, lastTs: this.lastTs, applied: this.applied }));
  }

  restore(bytes: Uint8Array): void {
    const s = JSON.parse(new TextDecoder().decode(bytes)) as {
      entries: [string, number][];
      lastTs: number;
      applied: number;
    };
    this.balances = new Map(s.entries);
    this.lastTs = s.lastTs;
    this.applied = s.applied;
  }

  hash(): string {
    return createHash('sha256').update(this.snapshot()).digest('hex');
  }
}

export const ledgerAccepted = (r: LedgerResult): boolean => r.ok;
