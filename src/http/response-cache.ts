// Pre-serialized read responses (principle 3 of docs/architecture.md "Principles"): a GET is a map lookup,
// a version comparison and a socket write. Each entry holds the bytes of one response, the version
// of the state they were built from (catalogVersion, book sequence numbers…) and a strong ETag
// derived from the bytes, so `If-None-Match` answers 304 (RFC 9110 §13.1.2) and a client polling an
// unchanged book moves no body at all. Keyed caches are LRU-bounded so that arbitrary query strings
// cannot grow memory.

import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface CachedBody {
  readonly body: Buffer;
  readonly etag: string;
}

/** Serializes once: JSON bytes and a strong ETag over them (SHA-1, 96 bits, base64url). */
export function cachedBody(value: unknown): CachedBody {
  return cachedJson(JSON.stringify(value));
}

export function cachedJson(json: string): CachedBody {
  const body = Buffer.from(json, 'utf8');
  const etag = `"${createHash('sha1').update(body).digest('base64url').slice(0, 16)}"`;
  return { body, etag };
}

/**
 * Least-recently-used map with a fixed capacity (Map keeps insertion order; a hit re-inserts).
 * While the map is below capacity nothing can be evicted, so hits skip the re-insertion (two Map
 * operations per request on the hot path); recency order is only maintained once it is full, which
 * is when it matters — e.g. someone cycling through arbitrary query strings.
 */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('capacity must be ≥ 1');
  }
  get size(): number {
    return this.map.size;
  }
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined && this.map.size >= this.capacity) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: K, value: V): void {
    if (this.map.has(key)) this.map.delete(key);
    else if (this.map.size >= this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(key, value);
  }
  clear(): void {
    this.map.clear();
  }
}

interface Versioned {
  version: string | number;
  cached: CachedBody;
}

/**
 * Bytes per key, rebuilt only when the version a caller observes differs from the one they were
 * built at. Versions are cheap to compute (numbers or short strings of sequence numbers); `build`
 * runs at most once per key and version.
 */
export class VersionedCache<K = string> {
  private readonly lru: LruCache<K, Versioned>;
  builds = 0;
  constructor(capacity: number) {
    this.lru = new LruCache(capacity);
  }
  get size(): number {
    return this.lru.size;
  }
  /** The bytes of `key` if they were built at `version`: for a build that must await first. */
  peek(key: K, version: string | number): CachedBody | undefined {
    const hit = this.lru.get(key);
    return hit !== undefined && hit.version === version ? hit.cached : undefined;
  }
  get(key: K, version: string | number, build: () => unknown): CachedBody {
    const hit = this.lru.get(key);
    if (hit !== undefined && hit.version === version) return hit.cached;
    const cached = cachedBody(build());
    this.builds++;
    this.lru.set(key, { version, cached });
    return cached;
  }
}

/** A single response (no key), e.g. a metadata list. */
export class VersionedBody {
  private entry: Versioned | undefined;
  get(version: string | number, build: () => unknown): CachedBody {
    const e = this.entry;
    if (e !== undefined && e.version === version) return e.cached;
    const cached = cachedBody(build());
    this.entry = { version, cached };
    return cached;
  }
}

/** True when an If-None-Match header value matches `etag` (weak comparison, RFC 9110 §13.1.2). */
export function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  for (const raw of value.split(',')) {
    let t = raw.trim();
    if (t.startsWith('W/')) t = t.slice(2);
    if (t === etag) return true;
  }
  return false;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers with cached bytes: 304 without a body when the client already holds them, else 200 (or
 * `status`) with the bytes. `no-cache` makes clients revalidate every time, which the ETag makes
 * nearly free — books move too often for any max-age.
 */
export function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  cached: CachedBody,
  status = 200,
): FastifyReply {
  reply.header('etag', cached.etag).header('cache-control', 'no-cache');
  const inm = request.headers['if-none-match'];
  if (inm !== undefined && etagMatches(inm, cached.etag)) return reply.code(304).send();
  if (status !== 200) reply.code(status);
  return reply.header('content-type', JSON_TYPE).send(cached.body);
}
