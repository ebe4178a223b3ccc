// The JSON Schemas of the stream's frames (docs/stream.md), by AsyncAPI message name: what
// asyncapi.ts publishes at /asyncapi.json and the OpenAPI document reuses. The builders of the same
// frames, and their types derived from these schemas, are in messages.ts;
// test/stream/asyncapi.test.ts validates real frames against these schemas, so the two cannot
// drift apart.

import { CHANNELS } from './channels.ts';
import { streamErrorSchema } from './error-schema.ts';
import { parlayMessages } from './parlay-message-schemas.ts';
import { privateMessages } from './private-message-schemas.ts';
import { currencySchema, isoTime, nonNegInt } from './schema-parts.ts';
import { bookSnapshotSchema, bookTickSchema, lifecycleTickSchema, schemas } from './tick-schemas.ts';

/** The named components (TickMarket, TickOrder, TickFill) the tick messages refer to. */
export { schemas };

/** The channels of the table by name, in words ("tape, lifecycle, private"). */
const CHANNEL_NAMES = CHANNELS.map((ch) => ch.name).join(', ');

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Every server → client message, by AsyncAPI message name. */
export const serverMessages: Record<string, { summary: string; payload: object }> = {
  bookTick: {
    summary: 'A book change (bare frame). PLACE: placed or (partially) filled; CANCEL: cancelled.',
    payload: {
      ...bookTickSchema,
      properties: {
        ...bookTickSchema.properties,
        order: ref('TickOrder'),
        fills: { type: 'array', items: ref('TickFill') },
        market: ref('TickMarket'),
      },
    },
  },
  lifecycleTick: {
    summary: 'A market or event lifecycle change (bare frame), one per open market for event changes.',
    payload: {
      ...lifecycleTickSchema,
      properties: { ...lifecycleTickSchema.properties, market: ref('TickMarket') },
    },
  },
  book: {
    summary:
      'Snapshot of one book (market × currency), sent on subscribe; reset=true when a fromSeq was no longer retained.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'book' },
        data: bookSnapshotSchema,
      },
    },
  },
  subscribed: {
    summary: 'Subscription acknowledged.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'subscribed' },
        data: {
          type: 'object',
          required: ['channel'],
          properties: {
            channel: { type: 'string' },
            currency: currencySchema,
            replayed: nonNegInt,
            reset: {
              type: 'boolean',
              description:
                'tape, lifecycle, private: true when fromSeq is beyond what is retained or beyond the replay the connection may receive; read REST history, then follow live.',
            },
          },
        },
      },
    },
  },
  unsubscribed: {
    summary: 'Unsubscription acknowledged.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'unsubscribed' },
        data: {
          type: 'object',
          required: ['channel'],
          properties: { channel: { type: 'string' }, currency: currencySchema },
        },
      },
    },
  },
  heartbeat: {
    summary: 'Application heartbeat, at least every 5 s per subscribed channel, with its latest seq.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'heartbeat' },
        data: {
          type: 'object',
          required: ['channel', 'ts'],
          properties: {
            channel: { type: 'string' },
            currency: currencySchema,
            seq: nonNegInt,
            journalSeq: nonNegInt,
            ts: isoTime,
          },
        },
      },
    },
  },
  resyncRequired: {
    summary:
      'The subscription is dropped (send buffer full, a replay the client stopped reading, or a replay overtaken by retention). fromSeq is the last seq the client received in full: resubscribe with it.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'resync_required' },
        data: {
          type: 'object',
          required: ['channel', 'fromSeq'],
          properties: { channel: { type: 'string' }, currency: currencySchema, fromSeq: nonNegInt },
        },
      },
    },
  },
  error: {
    summary: 'A client message was refused; nothing changed.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'error' },
        data: streamErrorSchema,
      },
    },
  },
  ...privateMessages,
  ...parlayMessages,
};

const channelName = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description: `${CHANNEL_NAMES} or a market id (docs/stream.md "Channels")`,
} as const;

/** Every client → server message; the server checks what it receives against these (client-message.ts). */
export const clientMessages: Record<string, { summary: string; payload: object }> = {
  subscribe: {
    summary: `Subscribe to ${CHANNEL_NAMES} or a market id; fromSeq resumes after that seq.`,
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'subscribe' },
        data: channelName,
        currency: currencySchema,
        fromSeq: { ...nonNegInt, maximum: Number.MAX_SAFE_INTEGER },
      },
    },
  },
  unsubscribe: {
    summary: 'Stop a subscription.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'unsubscribe' },
        data: channelName,
        currency: currencySchema,
      },
    },
  },
  cancelOnDisconnect: {
    summary: 'Arm (true) or disarm (false) cancel-on-disconnect for this connection (execute:trader).',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: { event: { const: 'cancel_on_disconnect' }, data: { type: 'boolean' } },
    },
  },
};
