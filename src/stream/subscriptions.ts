// Who is subscribed to what (docs/stream.md): the hub's indexes from a channel to the connections
// (or book subscriptions) that receive it, kept in step with each connection's own flags. The hub
// (hub.ts) decides what to send; this module only adds, drops and looks up.

import type { Id } from '../exchange/types.ts';
import type { BookSub, Connection, Global } from './connection.ts';

export class Subscriptions {
  readonly connections = new Set<Connection>();
  /** Book key (bookKey()) → its subscriptions. */
  readonly books = new Map<string, Set<BookSub>>();
  readonly tape = new Set<Connection>();
  readonly lifecycle = new Set<Connection>();
  /** Account → its connections that receive its private channel. */
  readonly private = new Map<Id, Set<Connection>>();

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

  addGlobal(c: Connection, ch: Global): void {
    if (ch === 'tape') {
      c.tape = true;
      this.tape.add(c);
    } else if (ch === 'lifecycle') {
      c.lifecycle = true;
      this.lifecycle.add(c);
    } else {
      const a = c.principal.accountId;
      if (a === null) return;
      c.private_ = true;
      let set = this.private.get(a);
      if (set === undefined) {
        set = new Set();
        this.private.set(a, set);
      }
      set.add(c);
    }
  }

  dropGlobal(c: Connection, ch: Global): void {
    c.replays.delete(ch);
    c.catchingUp[ch] = false;
    if (ch === 'tape') {
      c.tape = false;
      this.tape.delete(c);
    } else if (ch === 'lifecycle') {
      c.lifecycle = false;
      this.lifecycle.delete(c);
    } else {
      c.private_ = false;
      const a = c.principal.accountId;
      const set = a === null ? undefined : this.private.get(a);
      if (set !== undefined) {
        set.delete(c);
        if (set.size === 0) this.private.delete(a!);
      }
    }
  }

  /** Drops every subscription of `c` and forgets it. */
  dropAll(c: Connection): void {
    for (const s of [...c.books.values()]) this.dropBook(s);
    this.dropGlobal(c, 'tape');
    this.dropGlobal(c, 'lifecycle');
    this.dropGlobal(c, 'private');
    this.connections.delete(c);
  }

  /** Subscriptions counted against the per-connection bound (private is automatic, not counted). */
  count(c: Connection): number {
    return c.books.size + (c.tape ? 1 : 0) + (c.lifecycle ? 1 : 0);
  }
}
