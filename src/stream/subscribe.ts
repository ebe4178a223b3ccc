// Subscribing (docs/stream.md "Messages" and "Resume and retention"). A channel of the table
// (channels.ts): a resume replays its log after `fromSeq` when it still holds it and the
// connection's budget allows, else the ack says `reset: true` (these channels have no snapshot).
// A market channel (`<marketId>`): the same replay, else one `book` snapshot (reset: true when a
// fromSeq was given). A snapshot of a book with applied-but-uncommitted changes is held until the
// commit of its seq (hub.ts releases it).

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Currency } from '../exchange/types.ts';
import { isUuid } from '../ids.ts';
import { bookToWire } from '../wire/book.ts';
import { type ChannelSpec, counted } from './channel-types.ts';
import { MARKET_CHANNEL } from './channels.ts';
import type { BookSub, Connection } from './connection.ts';
import { bookKey } from './frames.ts';
import type { StreamLogs } from './logs.ts';
import { type BookSnapshot, envelope, type StreamErrorCode } from './messages.ts';
import type { ReplayPump } from './replay.ts';
import type { Subscriptions } from './subscriptions.ts';

/** What subscribing needs of the hub (hub.ts), declared here so the two files do not import each other. */
export interface SubscribeHost {
  readonly reader: () => ExchangeReader;
  readonly now: () => number;
  readonly subs: Subscriptions;
  readonly logs: StreamLogs;
  readonly replays: ReplayPump;
  refuse(c: Connection, code: StreamErrorCode, message: string): void;
  unknownChannelMessage(): string;
  atBound(c: Connection): boolean;
  sendBook(s: BookSub, frames: readonly string[], seq: number): boolean;
  mayRead(c: Connection, ch: ChannelSpec): boolean;
  readonly releasedJournalSeq: number;
}

/** True when `channel` could name a market (the book key of an unsubscribe is looked up as such). */
export const isMarketId = (channel: string): boolean => isUuid(channel);

export function subscribeBook(
  hub: SubscribeHost,
  c: Connection,
  channel: string,
  currency: Currency,
  fromSeq: number | undefined,
): void {
  if (!c.principal.scopes.has(MARKET_CHANNEL.scope)) {
    hub.refuse(c, 'INSUFFICIENT_SCOPE', MARKET_CHANNEL.scopeMessage);
    return;
  }
  const r = hub.reader();
  const m = isMarketId(channel) ? r.market(channel) : undefined;
  if (m === undefined) {
    hub.refuse(c, 'UNKNOWN_CHANNEL', hub.unknownChannelMessage());
    return;
  }
  const key = bookKey(m.id, currency);
  const existing = c.books.get(key);
  if (existing !== undefined) hub.subs.dropBook(existing);
  else if (hub.atBound(c)) return;
  const s: BookSub = { conn: c, key, marketId: m.id, currency, seq: 0 };
  hub.subs.addBook(s);
  const log = hub.logs.books.get(key);
  const released = log?.lastSeq ?? r.bookSeq(m.id, currency);
  const pendingSeq = hub.logs.appliedBookSeq.get(key);
  const ack = (replayed: number) =>
    c.sendControl(envelope('subscribed', { channel: m.id, currency, replayed }));
  if (fromSeq !== undefined && log?.covers(fromSeq) && hub.replays.allowed(c, log, fromSeq)) {
    ack(log.countAfter(fromSeq));
    s.seq = fromSeq;
    hub.replays.start(c, { book: s }, log, fromSeq);
    return;
  }
  if (fromSeq !== undefined && log === undefined && pendingSeq === undefined && fromSeq === released) {
    // Nothing changed since start and the client is already there.
    ack(0);
    s.seq = fromSeq;
    return;
  }
  // Beyond retention, or a replay larger than the budget allows: a snapshot (one frame, as large
  // as the book) brings the client up to date instead.
  ack(0);
  const wire = bookToWire(r, m, currency, hub.now());
  const snap: BookSnapshot = { ...wire, currency, reset: fromSeq !== undefined };
  const frame = envelope('book', snap);
  hub.replays.chargeSnapshot(c, frame.length);
  if (pendingSeq !== undefined && pendingSeq > released) {
    s.held = { seq: wire.seq, frame };
    return;
  }
  hub.sendBook(s, [frame], wire.seq);
}

/** Subscribes to a channel of the table; a resume replays its log after `fromSeq`, or says reset. */
export function subscribeChannel(
  hub: SubscribeHost,
  c: Connection,
  ch: ChannelSpec,
  fromSeq: number | undefined,
): void {
  if (!hub.mayRead(c, ch)) {
    hub.refuse(c, 'INSUFFICIENT_SCOPE', ch.scopeMessage);
    return;
  }
  const wasReplaying = c.replays.get(ch.name);
  if (c.channels.has(ch.name)) hub.subs.dropChannel(c, ch.name);
  else if (counted(ch) && hub.atBound(c)) return;
  if (wasReplaying !== undefined) hub.replays.end(wasReplaying);
  const sub = hub.subs.addChannel(c, ch, hub.releasedJournalSeq)!;
  const channel = ch.name;
  if (fromSeq === undefined) {
    c.sendControl(envelope('subscribed', { channel, replayed: 0 }));
    return;
  }
  const log = hub.logs.channel(ch, c.principal.accountId);
  // An account log trimmed away (or never begun) held nothing after the trim point or the start.
  const covered =
    log === undefined
      ? fromSeq >= hub.logs.missingFloor && fromSeq <= hub.releasedJournalSeq
      : log.covers(fromSeq);
  if (!covered || (log !== undefined && !hub.replays.allowed(c, log, fromSeq))) {
    // No snapshot exists for these channels: say the window is lost (read REST history instead).
    c.sendControl(envelope('subscribed', { channel, replayed: 0, reset: true }));
    return;
  }
  if (log === undefined) {
    c.sendControl(envelope('subscribed', { channel, replayed: 0 }));
    return;
  }
  c.sendControl(envelope('subscribed', { channel, replayed: log.countAfter(fromSeq) }));
  // Until the replay has sent it, nothing after fromSeq counts as delivered.
  sub.seq = fromSeq;
  hub.replays.start(c, { channel: sub }, log, fromSeq);
}
