// What a /tape client may send (docs/stream.md "Messages"), parsed and checked: a subscribe or
// unsubscribe of a channel (with its currency and resume seq), a cancel-on-disconnect switch, or
// the error frame that answers anything else. Never throws: bad input is the client's error.

import { CURRENCIES, type Currency } from '../exchange/types.ts';
import type { StreamErrorCode } from './messages.ts';

const CHANNEL_MAX = 64;

export type ClientMessage =
  | { kind: 'error'; code: StreamErrorCode; message: string }
  | { kind: 'cancel_on_disconnect'; data: unknown }
  | { kind: 'subscribe' | 'unsubscribe'; channel: string; currency: Currency; fromSeq?: number };

const bad = (code: StreamErrorCode, message: string): ClientMessage => ({ kind: 'error', code, message });

export function parseClientMessage(raw: string): ClientMessage {
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return bad('BAD_JSON', 'Frames must be JSON text');
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
    return bad('BAD_MESSAGE', 'A message is an object {"event": …, "data": …}');
  }
  const m = msg as { event?: unknown; data?: unknown; currency?: unknown; fromSeq?: unknown };
  if (m.event === 'cancel_on_disconnect') return { kind: 'cancel_on_disconnect', data: m.data };
  if (m.event !== 'subscribe' && m.event !== 'unsubscribe') {
    return bad('UNKNOWN_EVENT', 'event must be "subscribe", "unsubscribe" or "cancel_on_disconnect"');
  }
  if (typeof m.data !== 'string' || m.data.length === 0 || m.data.length > CHANNEL_MAX) {
    return bad('BAD_MESSAGE', 'data must be a channel name');
  }
  let currency: Currency = 'CASH';
  if (m.currency !== undefined) {
    if (!CURRENCIES.includes(m.currency as Currency))
      return bad('BAD_MESSAGE', 'currency must be CASH or COIN');
    currency = m.currency as Currency;
  }
  let fromSeq: number | undefined;
  if (m.fromSeq !== undefined) {
    if (typeof m.fromSeq !== 'number' || !Number.isSafeInteger(m.fromSeq) || m.fromSeq < 0) {
      return bad('BAD_MESSAGE', 'fromSeq must be a non-negative integer');
    }
    fromSeq = m.fromSeq;
  }
  return { kind: m.event, channel: m.data, currency, ...(fromSeq !== undefined ? { fromSeq } : {}) };
}
