// Trading locks (system-wide or per event, optionally expiring) and the live taker-fee coefficient
// (docs/lifecycle.md "Fees"; docs/exchange.md).

import { isStr, reject } from './command-checks.ts';
import { type Cmd, type ExchangeState, ok } from './state.ts';
import type { CommandResult, Id, TradingLock } from './types.ts';
import { coefficientToPpm } from './units.ts';

export function lockActive(l: TradingLock | undefined, ts: number): boolean {
  return l !== undefined && (l.expiresAt === null || l.expiresAt > ts);
}

export function isLocked(s: ExchangeState, eventId: Id, ts: number): boolean {
  if (s.lockMap.size === 0) return false;
  for (const l of s.lockMap.values()) {
    if ((l.eventId === null || l.eventId === eventId) && lockActive(l, ts)) return true;
  }
  return false;
}

export function setLock(s: ExchangeState, c: Cmd<'SetLock'>): CommandResult {
  const l = c.lock;
  if (!l || !isStr(l.id)) return reject('VALIDATION_FAILED', 'lock needs an id');
  if (l.expiresAt !== null && !Number.isSafeInteger(l.expiresAt)) {
    return reject('VALIDATION_FAILED', 'expiresAt must be ms or null');
  }
  if (s.lockMap.has(l.id)) return reject('ALREADY_EXISTS', `lock ${l.id} exists`);
  if (l.eventId !== null && !s.eventMap.has(l.eventId)) return reject('EVENT_NOT_FOUND');
  if (l.eventId === null) {
    for (const o of s.lockMap.values()) {
      if (o.eventId === null) return reject('ALREADY_EXISTS', 'a system lock is already set');
    }
  }
  s.lockMap.set(l.id, {
    id: l.id,
    eventId: l.eventId,
    reason: String(l.reason ?? ''),
    createdAt: Number.isSafeInteger(l.createdAt) ? l.createdAt : c.ts,
    expiresAt: l.expiresAt,
  });
  s.ev.push({ kind: 'LocksChanged' });
  return ok(s);
}

export function clearLock(s: ExchangeState, c: Cmd<'ClearLock'>): CommandResult {
  if (!s.lockMap.has(c.lockId)) return reject('LOCK_NOT_FOUND');
  s.lockMap.delete(c.lockId);
  s.ev.push({ kind: 'LocksChanged' });
  return ok(s);
}

export function setFeeCoefficient(s: ExchangeState, c: Cmd<'SetFeeCoefficient'>): CommandResult {
  const ppm = coefficientToPpm(c.coefficient);
  if (ppm === null) return reject('VALIDATION_FAILED', 'coefficient: 0..1 with at most 6 decimals');
  s.feePpm = ppm;
  return ok(s);
}
