// An order's wire JSON written as text: the bytes JSON.stringify(orderToWire(o)) gives (the keys of
// orderSchema in its order), without building the wire object first. A mass quote answers up to
// twenty orders, and an object per order handed to the schema's serializer cost more than its text
// (docs/bench-mass-quote.md). Strings the engine holds (ids, a client order id, flags)
// are escaped as JSON.stringify escapes them; the rest are numbers, enum names and ISO times.

import type { OrderRecord } from '../exchange/types.ts';
import { tickToPrice } from '../exchange/units.ts';
import { isoMillis, isoOrNull } from './names.ts';

/** A JSON string literal, as JSON.stringify writes it (which it does itself when any character needs it). */
export function jsonString(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // a control, a quote, a backslash, or a surrogate (a lone one is escaped)
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return `"${s}"`;
}

/** The ids an answer repeats (every order of a set has one of two outcome ids and one market id). */
let lastIn = '';
let lastOut = '""';
let prevIn = '';
let prevOut = '""';

/** jsonString of the two strings last asked for, kept. */
function idString(s: string): string {
  if (s === lastIn) return lastOut;
  if (s === prevIn) return prevOut;
  prevIn = lastIn;
  prevOut = lastOut;
  lastIn = s;
  lastOut = jsonString(s);
  return lastOut;
}

/** The wire price's text by tick ("0.42"), each made once: ticks are small integers. */
const PRICE_TEXT: string[] = [];

const nullableString = (s: string | null): string => (s === null ? 'null' : jsonString(s));

function priceText(tick: number): string {
  if (!((tick | 0) === tick && tick >= 0 && tick < 4096)) return String(tickToPrice(tick));
  let text = PRICE_TEXT[tick];
  if (text === undefined) {
    text = String(tickToPrice(tick));
    PRICE_TEXT[tick] = text;
  }
  return text;
}

/**
 * JSON.stringify(orderToWire(o, filledQty)), written directly; `tail` (`,"key":value…`) is written
 * before the closing brace, as keys set on the wire object after orderToWire would be.
 */
export function orderJson(o: OrderRecord, filledQty?: number, tail = ''): string {
  const expiresAt = isoOrNull(o.expiresAt);
  return (
    `{"id":${jsonString(o.id)},"outcomeId":${idString(o.outcomeId)},"marketId":${idString(o.marketId)}` +
    `,"price":${priceText(o.price)},"qty":${o.qty},"originalQty":${o.originalQty}` +
    `,"filledQty":${filledQty ?? o.originalQty - o.qty},"currency":"${o.currency}","tif":"${o.tif}"` +
    `,"expiresAt":${expiresAt === null ? 'null' : `"${expiresAt}"`},"flags":${nullableString(o.flags)}` +
    `,"clientOrderId":${nullableString(o.clientOrderId)},"status":"${o.status}"` +
    `,"created_at":"${isoMillis(o.createdAt)}","updated_at":"${isoMillis(o.updatedAt)}"${tail}}`
  );
}

/** A JSON array of orders' wire text. */
export function ordersJson(orders: readonly OrderRecord[]): string {
  let out = '[';
  for (let i = 0; i < orders.length; i++) out += (i === 0 ? '' : ',') + orderJson(orders[i]!);
  return `${out}]`;
}
