// Market-maker protection in the snapshot (docs/exchange.md "Snapshot, restore, hash"): a section
// after the resting orders, written only when some MMP state exists, so a state without any has
// the bytes (and hash) it had before protection existed. Accounts by id, entries in Map order
// (the order replay reproduces).

import type { BinReader, BinWriter } from './codec.ts';
import type { ExchangeState } from './state.ts';

export const MMP_SECTION = 'mmp/1';

export function writeMmp(s: ExchangeState, w: BinWriter): void {
  if (s.mmpConfigs.size === 0 && s.mmpFrozen.size === 0 && s.mmpWindows.size === 0) return;
  const id = (a: number) => s.accounts[a]!.id;
  w.str(MMP_SECTION);
  w.u32(s.mmpConfigs.size);
  for (const e of s.mmpConfigs.values()) {
    w.str(id(e.accountIndex));
    w.strOrNull(e.eventId);
    w.u8(e.currencyIndex);
    for (const v of [e.config.intervalMs, e.config.qtyLimit, e.config.netLimit, e.config.freezeMs]) w.f64(v);
  }
  w.u32(s.mmpFrozen.size);
  for (const f of s.mmpFrozen.values()) {
    w.str(id(f.accountIndex));
    w.str(f.eventId);
    w.f64(f.until);
  }
  w.u32(s.mmpWindows.size);
  for (const x of s.mmpWindows.values()) {
    w.str(id(x.accountIndex));
    w.str(x.eventId);
    w.u8(x.currencyIndex);
    w.u32((x.fills.length - x.from) / 3);
    for (let i = x.from; i < x.fills.length; i++) w.f64(x.fills[i]!);
  }
}

export function readMmp(s: ExchangeState, r: BinReader): void {
  if (r.str() !== MMP_SECTION) throw new Error('snapshot: unknown section');
  const account = (): number => {
    const a = s.accountIdx.get(r.str());
    if (a === undefined) throw new Error('snapshot: mmp entry of an unknown account');
    return a;
  };
  for (let n = r.u32(); n > 0; n--) {
    const accountIndex = account();
    const eventId = r.strOrNull();
    const currencyIndex = r.u8();
    const config = { intervalMs: r.f64(), qtyLimit: r.f64(), netLimit: r.f64(), freezeMs: r.f64() };
    s.mmpConfigs.set(`${accountIndex}|${eventId ?? ''}|${currencyIndex}`, {
      accountIndex,
      eventId,
      currencyIndex,
      config,
    });
  }
  for (let n = r.u32(); n > 0; n--) {
    const accountIndex = account();
    const eventId = r.str();
    s.mmpFrozen.set(`${accountIndex}|${eventId}`, { accountIndex, eventId, until: r.f64() });
  }
  for (let n = r.u32(); n > 0; n--) {
    const accountIndex = account();
    const eventId = r.str();
    const currencyIndex = r.u8();
    const fills: number[] = [];
    let qty = 0;
    let net = 0;
    for (let k = r.u32(); k > 0; k--) {
      fills.push(r.f64(), r.f64(), r.f64());
      qty += fills[fills.length - 2]!;
      net += fills[fills.length - 1]!;
    }
    s.mmpWindows.set(`${accountIndex}|${eventId}|${currencyIndex}`, {
      accountIndex,
      eventId,
      currencyIndex,
      fills,
      from: 0,
      qty,
      net,
    });
  }
}
