import { positionRecord } from './records.ts';
import { type Account, type ExchangeState, type Pos, WALLET_SLOTS, WALLET_STAMP } from './state.ts';
import { CURRENCIES, type DomainEvent, type Id } from './types.ts';

/**
 * A catalog change (a league, team, event or market created, a status or score changed, a market
 * settled): the catalog version the read caches key on moves, and one CatalogChanged event names
 * what changed. Emitted at once, not batched like the touches below.
 */
export function catalogChanged(s: ExchangeState, eventIds: Id[], marketIds: Id[]): void {
  s.catalogVersion++;
  s.ev.push({ kind: 'CatalogChanged', eventIds, marketIds });
}

export function touchBook(s: ExchangeState, bookIndex: number): void {
  if (s.bookStamp[bookIndex] !== s.stamp) {
    s.bookStamp[bookIndex] = s.stamp;
    s.touchedBooks[s.nBooks++] = bookIndex;
  }
}

export function touchWallet(s: ExchangeState, a: Account, currencyIndex: number): void {
  if (s.wallets[a.idx * WALLET_SLOTS + WALLET_STAMP + currencyIndex] !== s.stamp) {
    s.wallets[a.idx * WALLET_SLOTS + WALLET_STAMP + currencyIndex] = s.stamp;
    s.touchedWallets[s.nWallets++] = a.idx * 2 + currencyIndex;
  }
}

export function touchPos(s: ExchangeState, a: Account, p: Pos): void {
  if (p.stamp !== s.stamp) {
    p.stamp = s.stamp;
    s.touchedPos[s.nPos] = p;
    s.touchedPosAcct[s.nPos++] = a.idx;
  }
}

/** Emits one BookChanged / WalletChanged / PositionChanged per thing touched, after the rest. */
export function flushTouched(s: ExchangeState): void {
  const nb = s.nBooks;
  const nw = s.nWallets;
  const np = s.nPos;
  s.nBooks = 0;
  s.nWallets = 0;
  s.nPos = 0;
  if (!s.emitEvents) {
    for (let i = 0; i < nb; i++) s.bookSeqs[s.touchedBooks[i]!]!++;
    return;
  }
  for (let i = 0; i < nb; i++) {
    const bookIndex = s.touchedBooks[i]!;
    s.bookSeqs[bookIndex]!++;
    s.ev.push(s.bookChanged[bookIndex] ?? bookChanged(s, bookIndex));
  }
  for (let i = 0; i < nw; i++) {
    const w = s.touchedWallets[i]!;
    s.ev.push(s.walletChanged[w] ?? walletChanged(s, w));
  }
  for (let i = 0; i < np; i++) {
    s.ev.push({
      kind: 'PositionChanged',
      position: positionRecord(s, s.accounts[s.touchedPosAcct[i]!]!, s.touchedPos[i]!),
    });
  }
}

// BookChanged and WalletChanged name a book or a wallet and nothing else, so each is built once and
// shared by every command that touches it: frozen, since every result holds the same object (two
// objects per placement the server no longer allocates, docs/bench-engine.md "Building events").

function bookChanged(s: ExchangeState, bookIndex: number): DomainEvent {
  const e: DomainEvent = Object.freeze({
    kind: 'BookChanged',
    marketId: s.markets[bookIndex >> 1]!.rec.id,
    currency: CURRENCIES[bookIndex & 1]!,
  });
  s.bookChanged[bookIndex] = e;
  return e;
}

function walletChanged(s: ExchangeState, w: number): DomainEvent {
  const e: DomainEvent = Object.freeze({
    kind: 'WalletChanged',
    accountId: s.accounts[w >> 1]!.id,
    currency: CURRENCIES[w & 1]!,
  });
  s.walletChanged[w] = e;
  return e;
}
