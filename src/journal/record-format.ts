// The on-disk record of the embedded store's journal segments (docs/journal.md, "Segment files").
//
//   offset  size  field
//   0       4     payload length in bytes (u32 LE)
//   4       4     CRC-32 (zlib's, ISO-HDLC polynomial) of bytes 8 .. end of the record
//   8       8     seq (u64 LE; below 2^53)
//   16      8     durable seq when written (u64 LE): the highest seq whose fdatasync had returned
//   24      n     the command as compact JSON, UTF-8 (it carries its own ts)
//
// The durable seq is what lets recovery tell a torn tail from damage in the middle: a record
// written after seq E was known durable says so, so finding such a record behind a bad record at
// E proves E had been synced and then damaged (a hard error), while a bad record followed only by
// records that did not yet know E durable is a write that never completed (cut it).

import { crc32 } from 'node:zlib';

export const HEADER_BYTES = 24;
/** A record longer than this is not a record (a damaged length field). */
export const MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

export interface DecodedRecord {
  seq: number;
  durableSeq: number;
  payload: Uint8Array;
  /** Offset just past the record. */
  end: number;
}

function putU64(buf: Buffer, off: number, v: number): void {
  buf.writeUInt32LE(v % 0x1_0000_0000, off);
  buf.writeUInt32LE(Math.floor(v / 0x1_0000_0000), off + 4);
}

function getU64(buf: Buffer, off: number): number {
  return buf.readUInt32LE(off) + buf.readUInt32LE(off + 4) * 0x1_0000_0000;
}

/** The 16 bytes after the CRC field (seq and durable seq) of the record being encoded. */
const CRC_HEAD = Buffer.alloc(16);

/** Encodes consecutive records firstSeq, firstSeq+1, ... into one new buffer (one write). */
export function encodeRecords(firstSeq: number, durableSeq: number, payloads: readonly string[]): Buffer {
  return encodeInto(undefined, firstSeq, durableSeq, payloads);
}

/** Largest write buffer a RecordEncoder keeps between batches; a larger batch gets its own. */
export const KEPT_WRITE_BYTES = 4 * 1024 * 1024;

/**
 * encodeRecords into one buffer kept from batch to batch (grown up to KEPT_WRITE_BYTES): a group
 * commit's bytes are written synchronously and never read again (JournalFs.append copies or writes
 * them before it returns), so one buffer serves every batch instead of one allocated per batch,
 * which past the 4 KiB pool was a new backing store for the collector each time. The returned view
 * is valid until the next encode.
 */
export class RecordEncoder {
  private buf: Buffer = Buffer.allocUnsafe(64 * 1024);

  encode(firstSeq: number, durableSeq: number, payloads: readonly string[]): Buffer {
    return encodeInto(this, firstSeq, durableSeq, payloads);
  }

  /** A buffer of at least `bytes`: the kept one (grown when that stays under the cap), or a new one. */
  room(bytes: number): Buffer {
    if (bytes <= this.buf.length) return this.buf;
    if (bytes > KEPT_WRITE_BYTES) return Buffer.allocUnsafe(bytes);
    this.buf = Buffer.allocUnsafe(Math.min(KEPT_WRITE_BYTES, Math.max(bytes, this.buf.length * 2)));
    return this.buf;
  }
}

const kept = new RecordEncoder();

/**
 * encodeRecords into the one kept buffer of this thread (RecordEncoder): for bytes written before
 * the caller's next statement, as the segment journal's append writes them. One buffer for every
 * journal of the thread is safe because nothing runs between the encode and the write.
 */
export function encodeForWrite(firstSeq: number, durableSeq: number, payloads: readonly string[]): Buffer {
  return kept.encode(firstSeq, durableSeq, payloads);
}

function encodeInto(
  encoder: RecordEncoder | undefined,
  firstSeq: number,
  durableSeq: number,
  payloads: readonly string[],
): Buffer {
  // Each payload's text is encoded straight into the one buffer (no Buffer per record, no copy).
  let total = 0;
  const lengths: number[] = new Array(payloads.length);
  for (let i = 0; i < payloads.length; i++) {
    const n = Buffer.byteLength(payloads[i]!, 'utf8');
    lengths[i] = n;
    total += HEADER_BYTES + n;
  }
  const out = encoder === undefined ? Buffer.allocUnsafe(total) : encoder.room(total);
  let off = 0;
  for (let i = 0; i < payloads.length; i++) {
    const n = lengths[i]!;
    const text = payloads[i]!;
    out.writeUInt32LE(n, off);
    putU64(out, off + 8, firstSeq + i);
    putU64(out, off + 16, durableSeq);
    out.write(text, off + HEADER_BYTES, n, 'utf8');
    // The CRC of bytes 8 .. end, in two steps (the two u64 from a scratch buffer, then the payload's
    // text, which crc32 reads as UTF-8: the bytes just written) rather than over a view of the
    // record: a view is a JavaScript object per record, and every order is a record.
    out.copy(CRC_HEAD, 0, off + 8, off + HEADER_BYTES);
    out.writeUInt32LE(crc32(text, crc32(CRC_HEAD)), off + 4);
    off += HEADER_BYTES + n;
  }
  return out.length === total ? out : out.subarray(0, total);
}

/**
 * The record at `off`, or undefined when the bytes there are not a whole, CRC-valid record
 * (past the end, cut short, or damaged).
 */
export function decodeRecord(buf: Buffer, off: number): DecodedRecord | undefined {
  if (off + HEADER_BYTES > buf.length) return undefined;
  const len = buf.readUInt32LE(off);
  if (len > MAX_PAYLOAD_BYTES) return undefined;
  const end = off + HEADER_BYTES + len;
  if (end > buf.length) return undefined;
  if (crc32(buf.subarray(off + 8, end)) !== buf.readUInt32LE(off + 4)) return undefined;
  return {
    seq: getU64(buf, off + 8),
    durableSeq: getU64(buf, off + 16),
    payload: buf.subarray(off + HEADER_BYTES, end),
    end,
  };
}

/**
 * Searches buf from `from` on for any CRC-valid record whose durable seq is at least `seq`, byte
 * by byte (record boundaries after damage are unknown). Only used after a bad record was found.
 */
export function findLaterDurableClaim(buf: Buffer, from: number, seq: number): DecodedRecord | undefined {
  for (let off = from; off + HEADER_BYTES <= buf.length; off++) {
    const len = buf.readUInt32LE(off);
    if (len > MAX_PAYLOAD_BYTES || off + HEADER_BYTES + len > buf.length) continue;
    const durable = getU64(buf, off + 16);
    if (durable < seq || durable > Number.MAX_SAFE_INTEGER) continue;
    const r = decodeRecord(buf, off);
    if (r !== undefined) return r;
  }
  return undefined;
}
