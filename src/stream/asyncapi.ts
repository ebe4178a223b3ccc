// The AsyncAPI 3.0 document of /tape (served at /asyncapi.json), generated from the message schemas
// the code sends (message-schemas.ts, checked against the frames messages.ts builds by the AsyncAPI
// test) and from the channel table (channels.ts): the logical channels a client subscribes to are
// listed under `x-tickbook-channels` with their scope, retention and messages.

import { bearerScheme } from '../auth/scopes.ts';
import { CHANNELS, MARKET_CHANNEL } from './channels.ts';
import { STREAM_DEFAULTS } from './hub-options.ts';
import { clientMessages, schemas, serverMessages } from './message-schemas.ts';

/** One logical channel as the document lists it. */
export interface ChannelEntry {
  name: string;
  summary: string;
  scope: string;
  /** Subscribed at connect, without a subscribe message. */
  automatic: boolean;
  /** One log for all subscribers, one per account, or one per book. */
  log: 'shared' | 'per account' | 'per book';
  /** The most frames each log keeps for resume by default (age and bytes bound them too). */
  retainFrames: number;
  /** AsyncAPI message names it carries. */
  messages: string[];
}

/** The logical channels: the table's, then the market channels. */
export function channelList(): ChannelEntry[] {
  return [
    ...CHANNELS.map((ch) => ({
      name: ch.name,
      summary: ch.summary,
      scope: ch.scope,
      automatic: ch.kind === 'account' && ch.automatic,
      log: ch.kind === 'account' ? ('per account' as const) : ('shared' as const),
      retainFrames: STREAM_DEFAULTS[ch.retention],
      messages: [...ch.messages],
    })),
    {
      name: MARKET_CHANNEL.name,
      summary: MARKET_CHANNEL.summary,
      scope: MARKET_CHANNEL.scope,
      automatic: false,
      log: 'per book',
      retainFrames: STREAM_DEFAULTS.retainFrames,
      messages: [...MARKET_CHANNEL.messages],
    },
  ];
}

type Message = { summary: string; payload: object };

/**
 * Another WebSocket of the same server published beside /tape (the order-entry socket, whose
 * schemas live at the HTTP edge, src/http/order-socket/messages.ts).
 */
export interface ExtraChannel {
  name: string;
  address: string;
  description: string;
  client: Record<string, Message>;
  server: Record<string, Message>;
}

export function asyncApiDocument(baseUrl: string, extra?: ExtraChannel): Record<string, unknown> {
  const u = new URL(baseUrl);
  const messages: Record<string, unknown> = {};
  const all = { ...serverMessages, ...clientMessages, ...extra?.client, ...extra?.server };
  for (const [name, m] of Object.entries(all)) {
    messages[name] = { name, summary: m.summary, contentType: 'application/json', payload: m.payload };
  }
  const ref = (name: string) => ({ $ref: `#/channels/tape/messages/${name}` });
  const doc = tapeDocument(u, messages, ref);
  if (extra !== undefined) addChannel(doc, u, extra);
  return doc;
}

function addChannel(doc: Record<string, unknown>, u: URL, extra: ExtraChannel): void {
  const { name } = extra;
  (doc.servers as Record<string, unknown>)[name] = {
    host: u.host,
    protocol: u.protocol === 'https:' ? 'wss' : 'ws',
    pathname: extra.address,
    security: [{ $ref: '#/components/securitySchemes/bearer' }],
  };
  const names = [...Object.keys(extra.client), ...Object.keys(extra.server)];
  (doc.channels as Record<string, unknown>)[name] = {
    address: extra.address,
    title: `The ${extra.address} connection`,
    description: extra.description,
    servers: [{ $ref: `#/servers/${name}` }],
    messages: Object.fromEntries(names.map((n) => [n, { $ref: `#/components/messages/${n}` }])),
  };
  const ref = (n: string) => ({ $ref: `#/channels/${name}/messages/${n}` });
  const ops = doc.operations as Record<string, unknown>;
  ops[`${name}Receive`] = {
    action: 'receive',
    channel: { $ref: `#/channels/${name}` },
    summary: `What the server sends on ${extra.address}`,
    messages: Object.keys(extra.server).map(ref),
  };
  ops[`${name}Send`] = {
    action: 'send',
    channel: { $ref: `#/channels/${name}` },
    summary: `What a client may send on ${extra.address}`,
    messages: Object.keys(extra.client).map(ref),
  };
}

function tapeDocument(
  u: URL,
  messages: Record<string, unknown>,
  ref: (name: string) => unknown,
): Record<string, unknown> {
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Tickbook stream',
      version: '0.1.0',
      description:
        'Market data, lifecycle and private events over one WebSocket (docs/stream.md). Book ticks carry the book seq shared with the REST book and the journal seq; subscribe with fromSeq to resume. Close codes: 1009 a client frame over 4 KiB; 4029 the message limit (100 per second, token bucket); 1001 server shutting down; 1012 stream state rebuilt, reconnect and resume.',
    },
    servers: {
      tickbook: {
        host: u.host,
        protocol: u.protocol === 'https:' ? 'wss' : 'ws',
        pathname: '/tape',
        security: [{ $ref: '#/components/securitySchemes/bearer' }],
      },
    },
    channels: {
      tape: {
        address: '/tape',
        title: 'The /tape connection',
        description: `One WebSocket; logical channels (${channelList()
          .map((c) => c.name)
          .join(', ')}) are chosen by subscribe messages.`,
        'x-tickbook-channels': channelList(),
        servers: [{ $ref: '#/servers/tickbook' }],
        messages: Object.fromEntries(
          Object.keys({ ...serverMessages, ...clientMessages }).map((n) => [
            n,
            { $ref: `#/components/messages/${n}` },
          ]),
        ),
      },
    },
    operations: {
      receiveServerMessages: {
        action: 'receive',
        channel: { $ref: '#/channels/tape' },
        summary: 'What the server sends',
        messages: Object.keys(serverMessages).map(ref),
      },
      sendClientMessages: {
        action: 'send',
        channel: { $ref: '#/channels/tape' },
        summary: 'What a client may send',
        messages: Object.keys(clientMessages).map(ref),
      },
    },
    components: {
      securitySchemes: {
        bearer: bearerScheme(
          'Authorization: Bearer on the upgrade, or ?access_token=, or Sec-WebSocket-Protocol: tickbook, bearer.<token>',
        ),
      },
      schemas,
      messages,
    },
  };
}
