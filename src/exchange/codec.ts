// A small growable little-endian binary writer/reader for snapshots (and so for the state hash,
// which is SHA-256 over the snapshot bytes). Numbers are written as float64 (every Money/Qty/Millis
// is a safe integer, so float64 holds them exactly), strings as u32 length + UTF-8 bytes.

export class BinWriter {
  private buf: Buffer;
  private view: DataView;
  off = 0;

  constructor(initial = 1 << 16) {
    this.buf = Buffer.allocUnsafe(initial);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  private ensure(n: number): void {
    if (this.off + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.off + n) cap *= 2;
    const b = Buffer.allocUnsafe(cap);
    this.buf.copy(b, 0, 0, this.off);
    this.buf = b;
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.off++] = v;
  }

  u32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.off, v, true);
    this.off += 4;
  }

  f64(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.off, v, true);
    this.off += 8;
  }

  str(s: string): void {
    this.ensure(4 + s.length * 3);
    const n = this.buf.write(s, this.off + 4, 'utf8');
    this.view.setUint32(this.off, n, true);
    this.off += 4 + n;
  }

  /** A string or null (u32 0xffffffff marks null). */
  strOrNull(s: string | null | undefined): void {
    if (s === null || s === undefined) this.u32(0xffffffff);
    else this.str(s);
  }

  json(v: unknown): void {
    this.str(JSON.stringify(v));
  }

  /**
   * Starts a string written in parts (`strPart`, then `strEnd` with the offset returned here): the
   * same bytes as `str` of the parts joined, without holding the joined text at once, so a large
   * value can be written across several slices of a snapshot.
   */
  strStart(): number {
    this.ensure(4);
    const at = this.off;
    this.off += 4;
    return at;
  }

  strPart(s: string): void {
    this.ensure(s.length * 3);
    this.off += this.buf.write(s, this.off, 'utf8');
  }

  /** Ends the string `strStart` began at `at`: its length (UTF-8 bytes) before it. */
  strEnd(at: number): void {
    this.view.setUint32(at, this.off - at - 4, true);
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.off);
  }
}

export class BinReader {
  private buf: Buffer;
  private view: DataView;
  off = 0;

  constructor(bytes: Uint8Array) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(n: number): void {
    if (this.off + n > this.buf.length) throw new Error('snapshot truncated');
  }

  u8(): number {
    this.need(1);
    return this.buf[this.off++]!;
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.off, true);
    this.off += 4;
    return v;
  }

  f64(): number {
    this.need(8);
    const v = this.view.getFloat64(this.off, true);
    this.off += 8;
    return v;
  }

  str(): string {
    const n = this.u32();
    this.need(n);
    const s = this.buf.toString('utf8', this.off, this.off + n);
    this.off += n;
    return s;
  }

  strOrNull(): string | null {
    this.need(4);
    if (this.view.getUint32(this.off, true) === 0xffffffff) {
      this.off += 4;
      return null;
    }
    return this.str();
  }

  json<T>(): T {
    return JSON.parse(this.str()) as T;
  }

  done(): boolean {
    return this.off === this.buf.length;
  }
}
