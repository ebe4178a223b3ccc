// Accounts and money movements: account creation, wallets (packed, see WS in state.ts), deposits and
// withdrawals with their ledger entries.

import { touchWallet } from './change-tracking.ts';
import { isSafePos, isStr, reject } from './command-checks.ts';
import { NIL } from './order-pool.ts';
import { type Account, type Cmd, CUR_INDEX, type ExchangeState, ok, WS } from './state.ts';
import type { CommandResult, Id } from './types.ts';

export function createAccount(s: ExchangeState, c: Cmd<'CreateAccount'>): CommandResult {
  if (!isStr(c.accountId)) return reject('VALIDATION_FAILED', 'accountId required');
  if (s.accountIdx.has(c.accountId)) return reject('ALREADY_EXISTS', `account ${c.accountId} exists`);
  newAccount(s, c.accountId);
  return ok(s);
}

export function newAccount(s: ExchangeState, id: Id): Account {
  const a: Account = {
    idx: s.accounts.length,
    id,
    head: NIL,
    tail: NIL,
    positions: new Map(),
    clientOrders: new Map(),
  };
  if ((a.idx + 1) * WS > s.wal.length) {
    const grown = new Float64Array(s.wal.length * 2);
    grown.set(s.wal);
    s.wal = grown;
  }
  s.accounts.push(a);
  s.accountIdx.set(id, a.idx);
  return a;
}

export function moneyCmd(
  s: ExchangeState,
  c: Cmd<'Deposit'> | Cmd<'Withdraw'>,
): { a: Account; ci: number } | CommandResult {
  const ai = s.accountIdx.get(c.accountId);
  if (ai === undefined) return reject('ACCOUNT_NOT_FOUND');
  const ci = CUR_INDEX[c.currency];
  if (ci === undefined) return reject('INVALID_CURRENCY');
  if (!isSafePos(c.amount))
    return reject('INVALID_AMOUNT', 'amount must be a positive integer of 1e-5 units');
  return { a: s.accounts[ai]!, ci };
}

export function deposit(s: ExchangeState, c: Cmd<'Deposit'>): CommandResult {
  const r = moneyCmd(s, c);
  if ('ok' in r) return r;
  const { a, ci } = r;
  if (!Number.isSafeInteger(s.wal[a.idx * WS + ci]! + s.wal[a.idx * WS + 2 + ci]! + c.amount)) {
    return reject('INVALID_AMOUNT', 'balance would leave the safe integer range');
  }
  s.wal[a.idx * WS + ci]! += c.amount;
  s.deposits[ci]! += c.amount;
  touchWallet(s, a, ci);
  s.ev.push({
    kind: 'LedgerEntry',
    accountId: a.id,
    currency: c.currency,
    entryKind: 'DEPOSIT',
    amount: c.amount,
    ref: null,
  });
  return ok(s);
}

export function withdraw(s: ExchangeState, c: Cmd<'Withdraw'>): CommandResult {
  const r = moneyCmd(s, c);
  if ('ok' in r) return r;
  const { a, ci } = r;
  if (s.wal[a.idx * WS + ci]! < c.amount) return reject('INSUFFICIENT_FUNDS');
  s.wal[a.idx * WS + ci]! -= c.amount;
  s.withdrawals[ci]! += c.amount;
  touchWallet(s, a, ci);
  s.ev.push({
    kind: 'LedgerEntry',
    accountId: a.id,
    currency: c.currency,
    entryKind: 'WITHDRAWAL',
    amount: -c.amount,
    ref: null,
  });
  return ok(s);
}
