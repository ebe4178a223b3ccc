// Who may read what on /tape (docs/stream.md "Connecting", "Channels"), read from the channel
// table: a channel is read with its entry's scope (an account channel with an account too), the
// market channels with theirs. The upgrade admits a token that may read any of them; each subscribe
// is then checked against its own channel (subscribe.ts).

import type { Scope } from '../auth/scopes.ts';
import type { ChannelSpec } from './channel-types.ts';
import { MARKET_CHANNEL } from './channels.ts';
import type { Principalish } from './connection.ts';

/** A token may read a channel with its scope, and an account channel only with an account too. */
export function mayReadChannel(p: Principalish, ch: ChannelSpec): boolean {
  return p.scopes.has(ch.scope) && (ch.kind === 'shared' || p.accountId !== null);
}

/** Whether a token may open the stream: it may read the market channels or some channel of the table. */
export function admitsStream(p: Principalish, table: readonly ChannelSpec[]): boolean {
  return p.scopes.has(MARKET_CHANNEL.scope) || table.some((ch) => mayReadChannel(p, ch));
}

/** The scopes some channel accepts, the market channels' first: what a refused upgrade names. */
export function channelScopes(table: readonly ChannelSpec[]): Scope[] {
  return [...new Set<Scope>([MARKET_CHANNEL.scope, ...table.map((ch) => ch.scope)])];
}
