// Who is subscribed to what (docs/stream.md): the hub's indexes from a book or a channel of the
// table (channels.ts) to the connections that receive it, kept in step with each connection's own
// maps. The hub (hub.ts) decides what to send; this module only adds, drops and looks up.

import type { Id } from '../exchange/types.ts';
import { type ChannelSpec, counted } from './channel-types.ts';
import type { BookSub, ChannelSub, Connection } from './connection.ts';

export class Subscriptions {
  readonly connections = new Set<Connection>();
  /** Book key (bookKey()) → its subscriptions. */
  readonly books = new Map<string, Set<BookSub>>();
  /** Shared channel name → its connections. */
  private readonly shared = new Map<string, Set<Connection>>();
  /** Account channel name → account → its connections that receive it. */
  private readonly accounts = new Map<string, Map<Id, Set<Connection>>>();

  addBook(s: BookSub): void {
    s.conn.books.set(s.key, s);
    let set = this.books.get(s.key);
    if (set === undefined) {
      set = new Set();
      this.books.set(s.key, set);
    }
    set.add(s);
  }

  dropBook(s: BookSub): void {
    s.conn.books.delete(s.key);
    s.conn.replays.delete(s.key);
    const subs = this.books.get(s.key);
    if (subs !== undefined) {
      subs.delete(s);
      if (subs.size === 0) this.books.delete(s.key);
    }
  }

  /** The connections receiving a shared channel. */
  of(name: string): ReadonlySet<Connection> | undefined {
    return this.shared.get(name);
  }

  /** The connections receiving an account channel for `account`. */
  ofAccount(name: string, account: Id): ReadonlySet<Connection> | undefined {
    return this.accounts.get(name)?.get(account);
  }

  /** Subscribes `c` (an account channel needs the principal's account); returns its subscription. */
  addChannel(c: Connection, spec: ChannelSpec, seq: number): ChannelSub | undefined {
    let set: Set<Connection> | undefined;
    if (spec.kind === 'shared') {
      set = this.shared.get(spec.name);
      if (set === undefined) {
        set = new Set();
        this.shared.set(spec.name, set);
      }
    } else {
      const a = c.principal.accountId;
      if (a === null) return undefined;
      let byAccount = this.accounts.get(spec.name);
      if (byAccount === undefined) {
        byAccount = new Map();
        this.accounts.set(spec.name, byAccount);
      }
      set = byAccount.get(a);
      if (set === undefined) {
        set = new Set();
        byAccount.set(a, set);
      }
    }
    set.add(c);
    const sub: ChannelSub = { spec, seq, catchingUp: false };
    c.channels.set(spec.name, sub);
    return sub;
  }

  dropChannel(c: Connection, name: string): void {
    const sub = c.channels.get(name);
    if (sub === undefined) return;
    c.channels.delete(name);
    c.replays.delete(name);
    if (sub.spec.kind === 'shared') {
      const set = this.shared.get(name);
      set?.delete(c);
      if (set?.size === 0) this.shared.delete(name);
      return;
    }
    const a = c.principal.accountId;
    const byAccount = this.accounts.get(name);
    const set = a === null ? undefined : byAccount?.get(a);
    if (set !== undefined) {
      set.delete(c);
      if (set.size === 0) byAccount!.delete(a!);
    }
  }

  /** Drops every subscription of `c` and forgets it. */
  dropAll(c: Connection): void {
    for (const s of [...c.books.values()]) this.dropBook(s);
    for (const name of [...c.channels.keys()]) this.dropChannel(c, name);
    this.connections.delete(c);
  }

  /** Subscriptions counted against the per-connection bound (automatic ones are not counted). */
  count(c: Connection): number {
    let n = c.books.size;
    for (const s of c.channels.values()) if (counted(s.spec)) n++;
    return n;
  }
}
