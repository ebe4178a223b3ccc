// Market-maker protection (docs/exchange.md "Market-maker protection"): per account, per event and
// currency, fills of the account's protected orders within an interval accumulate (quantity and
// net exposure); a breach cancels the account's protected orders on that event and freezes new
// protected orders there until ResetMmp or the freeze ends, inside the PlaceOrder that breached.
// State is keyed `${accountIndex}|${eventId}` (freezes) and `…|${currencyIndex}` (configs, with
// eventId '' for the account's default, and fill windows); every change is a command, time is the
// command's ts, so replay and a snapshot restore give the same state.

import { isStr, reject } from './command-checks.ts';
import { F_QTY, FW, I_ACCOUNT, I_ANEXT, I_BOOK, I_TIF, IW, NIL, PROTECTED } from './order-pool.ts';
import { cancelHandle } from './resting-orders.ts';
import {
  accountOf,
  type Cmd,
  CUR_INDEX,
  type ExchangeState,
  type MarketState,
  type MmpWindow,
  ok,
} from './state.ts';
import {
  type CommandResult,
  CURRENCIES,
  type Id,
  MMP_MAX_MS,
  type MmpConfig,
  type MmpView,
} from './types.ts';
import { MAX_QTY_MCU } from './units.ts';

/** A freeze's `until` when it lasts until ResetMmp. */
export const UNTIL_RESET = -1;

const configKey = (a: number, eventId: Id | null, cur: number) => `${a}|${eventId ?? ''}|${cur}`;
const frozenKey = (a: number, eventId: Id) => `${a}|${eventId}`;

/** The config that applies to the account on the event in the currency: the event's, else the default. */
export function mmpConfigFor(s: ExchangeState, a: number, eventId: Id, cur: number): MmpConfig | undefined {
  return (s.mmpConfigs.get(configKey(a, eventId, cur)) ?? s.mmpConfigs.get(configKey(a, null, cur)))?.config;
}

/** Whether protected orders of the account on the event are frozen at `ts`. */
export function mmpFrozen(s: ExchangeState, a: number, eventId: Id, ts: number): boolean {
  const f = s.mmpFrozen.get(frozenKey(a, eventId));
  return f !== undefined && (f.until === UNTIL_RESET || f.until > ts);
}

/** PlaceOrder's check of `mmp` (only called when the command carries the field); null: accepted. */
export function checkProtected(
  s: ExchangeState,
  c: Cmd<'PlaceOrder'>,
  a: number,
  market: MarketState,
  cur: number,
): CommandResult | null {
  if (typeof c.mmp !== 'boolean') return reject('VALIDATION_FAILED', 'mmp: a boolean');
  if (!c.mmp) return null;
  if (mmpConfigFor(s, a, market.event.id, cur) === undefined) return reject('MMP_NOT_CONFIGURED');
  if (mmpFrozen(s, a, market.event.id, c.ts)) return reject('MMP_FROZEN');
  return null;
}

function validConfig(m: MmpConfig | undefined): string | null {
  if (m === null || typeof m !== 'object') return 'config required';
  const ms = (v: unknown, min: number) =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= MMP_MAX_MS;
  const qty = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_QTY_MCU;
  if (!ms(m.intervalMs, 1)) return `intervalMs: 1..${MMP_MAX_MS}`;
  if (!ms(m.freezeMs, 0)) return `freezeMs: 0 (until reset)..${MMP_MAX_MS}`;
  if (!qty(m.qtyLimit) || !qty(m.netLimit)) return `qtyLimit, netLimit: 0..${MAX_QTY_MCU} MCU`;
  if (m.qtyLimit === 0 && m.netLimit === 0) return 'qtyLimit or netLimit must be positive';
  return null;
}

export function setMmp(s: ExchangeState, c: Cmd<'SetMmp'>): CommandResult {
  const a = accountOf(s, c);
  if (a === undefined) return reject('ACCOUNT_NOT_FOUND');
  const cur = CUR_INDEX[c.currency];
  if (cur === undefined) return reject('INVALID_CURRENCY');
  if (c.eventId !== null && !(isStr(c.eventId) && s.eventMap.has(c.eventId)))
    return reject('EVENT_NOT_FOUND');
  const bad = validConfig(c.config);
  if (bad !== null) return reject('VALIDATION_FAILED', bad);
  const { intervalMs, qtyLimit, netLimit, freezeMs } = c.config;
  s.mmpConfigs.set(configKey(a, c.eventId, cur), {
    accountIndex: a,
    eventId: c.eventId,
    currencyIndex: cur,
    config: { intervalMs, qtyLimit, netLimit, freezeMs },
  });
  return ok(s);
}

export function resetMmp(s: ExchangeState, c: Cmd<'ResetMmp'>): CommandResult {
  const a = accountOf(s, c);
  if (a === undefined) return reject('ACCOUNT_NOT_FOUND');
  if (c.eventId !== null && !(isStr(c.eventId) && s.eventMap.has(c.eventId)))
    return reject('EVENT_NOT_FOUND');
  const mine = (x: { accountIndex: number; eventId: Id }) =>
    x.accountIndex === a && (c.eventId === null || x.eventId === c.eventId);
  for (const [k, f] of s.mmpFrozen) if (mine(f)) s.mmpFrozen.delete(k);
  for (const [k, w] of s.mmpWindows) if (mine(w)) s.mmpWindows.delete(k);
  s.ev.push({ kind: 'MmpReset', accountId: s.accounts[a]!.id, eventId: c.eventId, ts: c.ts });
  return ok(s);
}

/** Windows the current PlaceOrder added fills to (cleared by each mmpRecordFills). */
const touched: MmpWindow[] = [];

/**
 * After a PlaceOrder's matching loop, before its remainder rests (a filled maker's handle is free
 * then, and the remainder may take it): adds each protected side's fill (`s.fMaker`… for
 * i < nFills; wash records skipped) to its window. true when some window took a fill: the command
 * then calls mmpCheckLimits at its end, so an order the taker just rested is cancelled too.
 */
export function mmpRecordFills(
  s: ExchangeState,
  c: Cmd<'PlaceOrder'>,
  market: MarketState,
  taker: number,
  side: number,
  nFills: number,
): boolean {
  const cur = CUR_INDEX[c.currency]!;
  const eventId = market.event.id;
  touched.length = 0;
  const add = (a: number, outcome: number, qty: number) => {
    const cfg = mmpConfigFor(s, a, eventId, cur);
    if (cfg === undefined) return; // defensive: a protected order was placed under a config, never removed
    const key = `${a}|${eventId}|${cur}`;
    let w = s.mmpWindows.get(key);
    if (w === undefined) {
      w = { accountIndex: a, eventId, currencyIndex: cur, fills: [], from: 0, qty: 0, net: 0 };
      s.mmpWindows.set(key, w);
    }
    const signed = outcome === 0 ? qty : -qty;
    w.fills.push(c.ts, qty, signed);
    w.qty += qty;
    w.net += signed;
    if (!touched.includes(w)) touched.push(w);
  };
  const pool = s.pool;
  const takerProtected = c.mmp === true;
  for (let i = 0; i < nFills; i++) {
    if (s.fWash[i] === 1) continue;
    const h = s.fMaker[i]!;
    if ((pool.i32[h * IW + I_TIF]! & PROTECTED) !== 0)
      add(pool.i32[h * IW + I_ACCOUNT]!, side ^ 1, s.fQty[i]!);
    if (takerProtected) add(taker, side, s.fQty[i]!);
  }
  return touched.length > 0;
}

/** The limits of the windows mmpRecordFills touched: a breach cancels and freezes (trigger). */
export function mmpCheckLimits(s: ExchangeState, c: Cmd<'PlaceOrder'>, market: MarketState): void {
  const eventId = market.event.id;
  for (const w of touched) {
    const cfg = mmpConfigFor(s, w.accountIndex, eventId, w.currencyIndex)!;
    // drop fills older than the interval: the window is (ts − intervalMs, ts]
    while (w.from < w.fills.length && w.fills[w.from]! <= c.ts - cfg.intervalMs) {
      w.qty -= w.fills[w.from + 1]!;
      w.net -= w.fills[w.from + 2]!;
      w.from += 3;
    }
    if (w.from > 96 && w.from * 2 > w.fills.length) {
      w.fills = w.fills.slice(w.from);
      w.from = 0;
    }
    const breach =
      (cfg.qtyLimit > 0 && w.qty >= cfg.qtyLimit) || (cfg.netLimit > 0 && Math.abs(w.net) >= cfg.netLimit);
    if (breach && !mmpFrozen(s, w.accountIndex, eventId, c.ts)) trigger(s, c.ts, market, w, cfg);
  }
}

/** A breach: freeze, cancel the account's protected orders on the event, clear its windows there. */
function trigger(s: ExchangeState, ts: number, market: MarketState, w: MmpWindow, cfg: MmpConfig): void {
  const a = w.accountIndex;
  const ev = market.event;
  const until = cfg.freezeMs === 0 ? UNTIL_RESET : ts + cfg.freezeMs;
  s.mmpFrozen.set(frozenKey(a, ev.id), { accountIndex: a, eventId: ev.id, until });
  const { qty, net } = w;
  for (const [k, x] of s.mmpWindows) if (x.accountIndex === a && x.eventId === ev.id) s.mmpWindows.delete(k);
  let canceled = 0;
  const pool = s.pool;
  for (let h = s.accounts[a]!.head; h !== NIL; ) {
    const next = pool.i32[h * IW + I_ANEXT]!;
    if (
      (pool.i32[h * IW + I_TIF]! & PROTECTED) !== 0 &&
      pool.f64[h * FW + F_QTY]! > 0 &&
      s.markets[pool.i32[h * IW + I_BOOK]! >> 1]!.event === ev
    ) {
      cancelHandle(s, h, 'MMP', ts);
      canceled++;
    }
    h = next;
  }
  s.ev.push({
    kind: 'MmpTriggered',
    accountId: s.accounts[a]!.id,
    eventId: ev.id,
    currency: CURRENCIES[w.currencyIndex]!,
    qty,
    net,
    frozenUntil: until === UNTIL_RESET ? null : until,
    canceled,
    ts,
  });
}

export function mmpView(s: ExchangeState, accountId: Id): MmpView | undefined {
  const a = s.accountIdx.get(accountId);
  if (a === undefined) return undefined;
  const view: MmpView = { configs: [], frozen: [] };
  for (const e of s.mmpConfigs.values()) {
    if (e.accountIndex === a)
      view.configs.push({ eventId: e.eventId, currency: CURRENCIES[e.currencyIndex]!, ...e.config });
  }
  for (const f of s.mmpFrozen.values()) {
    if (f.accountIndex === a)
      view.frozen.push({ eventId: f.eventId, until: f.until === UNTIL_RESET ? null : f.until });
  }
  return view;
}
