// What a /tape client may send (docs/stream.md "Messages"), checked by the published AsyncAPI
// schemas of the client messages (message-schemas.ts `clientMessages`) with Ajv: a subscribe or
// unsubscribe of a channel (with its currency and resume seq), a cancel-on-disconnect switch, or
// the error frame that answers anything else. Which channel a name means (the channel table, a
// market) is the hub's second pass. Never throws: bad input is the client's error.

import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { Currency } from '../exchange/types.ts';
import { clientMessages } from './message-schemas.ts';
import type { StreamErrorCode } from './messages.ts';

export type ClientMessage =
  | { kind: 'error'; code: StreamErrorCode; message: string }
  | { kind: 'cancel_on_disconnect'; data: boolean }
  | { kind: 'subscribe' | 'unsubscribe'; channel: string; currency: Currency; fromSeq?: number };

interface Raw {
  event: 'subscribe' | 'unsubscribe' | 'cancel_on_disconnect';
  data: unknown;
  currency?: Currency;
  fromSeq?: number;
}

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ??
  AjvModule) as typeof AjvModule.default;
const ajv = new Ajv({ allErrors: false });

/** Message event (the `const` of its schema's `event`) → the validator of its published schema. */
const byEvent = new Map<string, ValidateFunction<Raw>>();
for (const m of Object.values(clientMessages)) {
  const p = m.payload as { properties: { event: { const: string } } };
  byEvent.set(p.properties.event.const, ajv.compile<Raw>(m.payload));
}
const isObject = ajv.compile({ type: 'object' });
const EVENTS = [...byEvent.keys()].map((e) => `"${e}"`);

/** The refusal of a field the schema rejected, in words. */
const FIELD_MESSAGES: Record<string, string> = {
  currency: 'currency must be CASH or COIN',
  fromSeq: 'fromSeq must be a non-negative integer',
};

function fieldOf(e: ErrorObject): string {
  if (e.keyword === 'required') return (e.params as { missingProperty: string }).missingProperty;
  return e.instancePath.split('/')[1] ?? '';
}

const bad = (code: StreamErrorCode, message: string): ClientMessage => ({ kind: 'error', code, message });

export function parseClientMessage(raw: string): ClientMessage {
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return bad('BAD_JSON', 'Frames must be JSON text');
  }
  if (!isObject(msg) || Array.isArray(msg)) {
    return bad('BAD_MESSAGE', 'A message is an object {"event": …, "data": …}');
  }
  const event = (msg as { event?: unknown }).event;
  const validate = typeof event === 'string' ? byEvent.get(event) : undefined;
  if (validate === undefined) {
    return bad('UNKNOWN_EVENT', `event must be ${EVENTS.slice(0, -1).join(', ')} or ${EVENTS.at(-1)}`);
  }
  if (!validate(msg)) {
    const field = fieldOf(validate.errors![0]!);
    if (field !== 'data') return bad('BAD_MESSAGE', FIELD_MESSAGES[field] ?? `${field} is not valid`);
    return bad(
      'BAD_MESSAGE',
      event === 'cancel_on_disconnect' ? 'data must be true or false' : 'data must be a channel name',
    );
  }
  if (msg.event === 'cancel_on_disconnect')
    return { kind: 'cancel_on_disconnect', data: msg.data as boolean };
  const out: ClientMessage = {
    kind: msg.event,
    channel: msg.data as string,
    currency: msg.currency ?? 'CASH',
  };
  if (msg.fromSeq !== undefined) out.fromSeq = msg.fromSeq;
  return out;
}
