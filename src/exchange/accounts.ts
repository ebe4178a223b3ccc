// Accounts and money movements: account creation, wallets (packed, see WALLET_SLOTS in state.ts), deposits and
// withdrawals with their ledger entries.

import { touchWallet } from './change-tracking.ts';
import { isSafePos, isStr, reject } from './command-checks.ts';
import { NIL } from './order-pool.ts';
import {
  type Account,
  accountOf,
  type Cmd,
  CUR_INDEX,
  type ExchangeState,
  ok,
  WALLET_RESERVED,
  WALLET_SLOTS,
} from './state.ts';
import type { CommandResult, Id } from './types.ts';
import { MAX_MONEY, MAX_MONEY_COUNTER } from './units.ts';

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
    olderClientOrders: null,
  };
  if ((a.idx + 1) * WALLET_SLOTS > s.wallets.length) {
    const grown = new Float64Array(s.wallets.length * 2);
    grown.set(s.wallets);
    s.wallets = grown;
  }
  s.accounts.push(a);
  s.accountIdx.set(id, a.idx);
  return a;
}

export function moneyCmd(
  s: ExchangeState,
  c: Cmd<'Deposit'> | Cmd<'Withdraw'>,
): { a: Account; currencyIndex: number } | CommandResult {
  const accountIndex = accountOf(s, c);
  if (accountIndex === undefined) return reject('ACCOUNT_NOT_FOUND');
  const currencyIndex = CUR_INDEX[c.currency];
  if (currencyIndex === undefined) return reject('INVALID_CURRENCY');
  if (!isSafePos(c.amount))
    return reject('INVALID_AMOUNT', 'amount must be a positive integer of 1e-5 units');
  return { a: s.accounts[accountIndex]!, currencyIndex };
}

export function deposit(s: ExchangeState, c: Cmd<'Deposit'>): CommandResult {
  const r = moneyCmd(s, c);
  if ('ok' in r) return r;
  const { a, currencyIndex } = r;
  // The money ceiling (units.ts MAX_MONEY, docs/exchange.md "Exact money"): the wallet, the
  // currency's money in the exchange and its lifetime deposits counter must all stay exact.
  const balance =
    s.wallets[a.idx * WALLET_SLOTS + currencyIndex]! +
    s.wallets[a.idx * WALLET_SLOTS + WALLET_RESERVED + currencyIndex]!;
  const outstanding = s.deposits[currencyIndex]! - s.withdrawals[currencyIndex]!;
  if (
    c.amount > MAX_MONEY - balance ||
    c.amount > MAX_MONEY - outstanding ||
    c.amount > MAX_MONEY_COUNTER - s.deposits[currencyIndex]!
  ) {
    return reject('AMOUNT_OUT_OF_RANGE', 'deposit would take a balance past 10 billion currency units');
  }
  s.wallets[a.idx * WALLET_SLOTS + currencyIndex]! += c.amount;
  s.deposits[currencyIndex]! += c.amount;
  touchWallet(s, a, currencyIndex);
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
  const { a, currencyIndex } = r;
  if (s.wallets[a.idx * WALLET_SLOTS + currencyIndex]! < c.amount) return reject('INSUFFICIENT_FUNDS');
  s.wallets[a.idx * WALLET_SLOTS + currencyIndex]! -= c.amount;
  s.withdrawals[currencyIndex]! += c.amount;
  touchWallet(s, a, currencyIndex);
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
