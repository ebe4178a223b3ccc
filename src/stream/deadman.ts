// The dead-man switch (docs/stream.md "Dead-man switch"): a countdown per account, armed by
// `POST /nbx/v2/emm/heartbeat {"timeoutMs"}` (0 disarms) or by a WebSocket connection that opted
// into cancel-on-disconnect. When it fires, the account's resting orders are cancelled by ONE
// CancelOrders{scope:'all'} command through the sequencer — the same command `DELETE /kill` sends —
// so the journal holds it and replay reproduces it. The outcome goes to the account's private
// channel and into the next heartbeat response.

import type { CommandResult, Id } from '../exchange/types.ts';
import type { CommandInput } from '../runtime/exchange-port.ts';
import { isoMillis } from '../wire/names.ts';
import { type DeadmanReport, envelope } from './messages.ts';

export const DEADMAN_MIN_MS = 1_000;
export const DEADMAN_MAX_MS = 300_000;

export interface DeadmanDeps {
  submit(cmd: CommandInput): Promise<CommandResult>;
  /** Journal seq of the last applied command (read right after submit applied ours). */
  appliedSeq(): number;
  now?: () => number;
  /** Where the outcome is reported live (the hub's private channel). */
  report?(accountId: Id, frame: string): void;
  /** Timer functions, replaceable by a test's fake clock. */
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
  onFire?: (reason: DeadmanReport['reason'], lateMs: number) => void;
  /** Where armed countdowns persist across restarts (the store's stream_deadman table). */
  persist?: DeadmanPersistence;
  /**
   * A process that does not write (a PostgreSQL replica) has the writer fire a cancel-on-disconnect:
   * returns its report, or undefined when this process writes itself (docs/cluster.md "Streams").
   */
  remote?: (accountId: Id, reason: DeadmanReport['reason']) => Promise<DeadmanReport> | undefined;
}

export interface DeadmanPersistence {
  save(accountId: Id, timeoutMs: number, deadline: number): Promise<void>;
  remove(accountId: Id): Promise<void>;
  load(): Promise<{ accountId: Id; timeoutMs: number; deadline: number }[]>;
}

/** DeadmanPersistence over the SQL store (PGlite or PostgreSQL). */
export function sqlDeadmanPersistence(store: {
  query<T>(sql: string, params?: readonly unknown[]): Promise<{ rows: T[] }>;
}): DeadmanPersistence {
  return {
    save: async (accountId, timeoutMs, deadline) => {
      await store.query(
        `INSERT INTO stream_deadman (account_id, timeout_ms, deadline_ms) VALUES ($1, $2, $3)
         ON CONFLICT (account_id) DO UPDATE SET timeout_ms = EXCLUDED.timeout_ms, deadline_ms = EXCLUDED.deadline_ms`,
        [accountId, timeoutMs, deadline],
      );
    },
    remove: async (accountId) => {
      await store.query('DELETE FROM stream_deadman WHERE account_id = $1', [accountId]);
    },
    load: async () => {
      const r = await store.query<{ account_id: string; timeout_ms: number; deadline_ms: string | number }>(
        'SELECT account_id, timeout_ms, deadline_ms FROM stream_deadman',
      );
      return r.rows.map((x) => ({
        accountId: x.account_id,
        timeoutMs: Number(x.timeout_ms),
        deadline: Number(x.deadline_ms),
      }));
    },
  };
}

interface Armed {
  timeoutMs: number;
  deadline: number;
  timer: unknown;
}

export interface HeartbeatAnswer {
  armed: boolean;
  timeoutMs: number;
  /** ISO 8601, or null when disarmed. */
  deadline: string | null;
  /** The last time the switch fired for this account (reported once, then cleared). */
  fired: DeadmanReport | null;
}

export class DeadmanSwitch {
  private readonly armed = new Map<Id, Armed>();
  private readonly fired = new Map<Id, DeadmanReport>();
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (t: unknown) => void;

  constructor(private readonly deps: DeadmanDeps) {
    this.now = deps.now ?? Date.now;
    this.setTimer =
      deps.setTimer ??
      ((fn, ms) => {
        const t = setTimeout(fn, ms);
        t.unref();
        return t;
      });
    this.clearTimer = deps.clearTimer ?? ((t) => clearTimeout(t as NodeJS.Timeout));
  }

  /**
   * Arms (or re-arms) the countdown; 0 disarms. Answers the state plus any unreported firing once
   * the armed deadline is stored (so a restart after the answer still fires it).
   */
  async heartbeat(accountId: Id, timeoutMs: number): Promise<HeartbeatAnswer> {
    const fired = this.fired.get(accountId) ?? null;
    this.fired.delete(accountId);
    if (timeoutMs === 0) {
      this.disarm(accountId);
      await this.deps.persist?.remove(accountId);
      return { armed: false, timeoutMs: 0, deadline: null, fired };
    }
    const deadline = this.now() + timeoutMs;
    this.arm(accountId, timeoutMs, deadline);
    await this.deps.persist?.save(accountId, timeoutMs, deadline);
    return { armed: true, timeoutMs, deadline: isoMillis(deadline), fired };
  }

  private disarm(accountId: Id): void {
    const prev = this.armed.get(accountId);
    if (prev !== undefined) this.clearTimer(prev.timer);
    this.armed.delete(accountId);
  }

  private arm(accountId: Id, timeoutMs: number, deadline: number): void {
    this.disarm(accountId);
    const wait = Math.max(0, deadline - this.now());
    const timer = this.setTimer(() => void this.fire(accountId, 'timeout', deadline), wait);
    this.armed.set(accountId, { timeoutMs, deadline, timer });
  }

  /**
   * After a restart: re-arms every stored countdown; one whose deadline passed while the server was
   * down fires now. Call before the server accepts requests.
   */
  async restore(): Promise<number> {
    const rows = (await this.deps.persist?.load()) ?? [];
    for (const r of rows) this.arm(r.accountId, r.timeoutMs, r.deadline);
    return rows.length;
  }

  isArmed(accountId: Id): boolean {
    return this.armed.has(accountId);
  }

  /**
   * Cancels every resting order of the account with one journaled command. The report is kept for
   * the next heartbeat answer and sent on the private channel.
   */
  async fire(accountId: Id, reason: DeadmanReport['reason'], deadline?: number): Promise<DeadmanReport> {
    const a = this.armed.get(accountId);
    if (reason === 'timeout') {
      // A stale timer (re-armed since) must not fire.
      if (a === undefined || a.deadline !== deadline)
        return this.fired.get(accountId) ?? emptyReport(reason, this.now());
      this.armed.delete(accountId);
    }
    const at = this.now();
    if (deadline !== undefined) this.deps.onFire?.(reason, at - deadline);
    const remote = this.deps.remote?.(accountId, reason);
    if (remote !== undefined) {
      const report = await remote.catch(() => emptyReport(reason, at));
      this.deps.report?.(accountId, envelope('deadman', report));
      return report;
    }
    const pending = this.deps.submit({ type: 'CancelOrders', accountId, scope: 'all' });
    const seq = this.deps.appliedSeq();
    let report: DeadmanReport;
    let decided = true;
    try {
      const r = await pending;
      const canceled = r.ok ? r.events.filter((e) => e.kind === 'OrderCanceled').length : 0;
      report = { reason, canceled, journalSeq: r.ok ? seq : null, at: isoMillis(at) };
    } catch {
      // The sequencer stopped: the outcome is unknown until the journal is read again.
      report = { reason, canceled: 0, journalSeq: null, at: isoMillis(at) };
      decided = false;
    }
    // The cancel is durable: forget the stored countdown. A crash between the two leaves the row,
    // and the restart sends a second CancelOrders, which finds nothing left to cancel
    // (docs/stream.md: one cancelling command in effect). When the outcome is unknown (this process
    // lost the database or the leadership) the row stays, so the next writer fires it again.
    if (reason === 'timeout' && decided) await this.deps.persist?.remove(accountId).catch(() => {});
    this.fired.set(accountId, report);
    this.deps.report?.(accountId, envelope('deadman', report));
    return report;
  }

  /** Clears every timer (shutdown). */
  close(): void {
    for (const a of this.armed.values()) this.clearTimer(a.timer);
    this.armed.clear();
  }
}

function emptyReport(reason: DeadmanReport['reason'], at: number): DeadmanReport {
  return { reason, canceled: 0, journalSeq: null, at: isoMillis(at) };
}
