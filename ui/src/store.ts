// A minimal observable value and its Preact hook: enough shared state for a page this size
// without a state library (the bundle budget is docs/ui.md's 150 KB).
import { useEffect, useState } from 'preact/hooks';

export class Store<T> {
  private listeners = new Set<(v: T) => void>();
  constructor(private value: T) {}
  get(): T {
    return this.value;
  }
  set(v: T): void {
    this.value = v;
    for (const l of this.listeners) l(v);
  }
  update(f: (v: T) => T): void {
    this.set(f(this.value));
  }
  subscribe(l: (v: T) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

export function useStore<T>(s: Store<T>): T {
  const [v, setV] = useState(s.get());
  useEffect(() => {
    setV(s.get());
    return s.subscribe(setV);
  }, [s]);
  return v;
}

/** One timer per interval, shared: every clock of the page that ticks together re-renders in one pass. */
const clocks = new Map<
  number,
  { store: Store<number>; users: number; handle: ReturnType<typeof setInterval> }
>();

/** Re-renders every `ms` (ages, countdowns). */
export function useTick(ms: number): number {
  const [t, setT] = useState(Date.now());
  useEffect(() => {
    let c = clocks.get(ms);
    if (c === undefined) {
      const store = new Store(Date.now());
      c = { store, users: 0, handle: setInterval(() => store.set(Date.now()), ms) };
      clocks.set(ms, c);
    }
    c.users++;
    const off = c.store.subscribe(setT);
    const clock = c;
    return () => {
      off();
      if (--clock.users === 0) {
        clearInterval(clock.handle);
        clocks.delete(ms);
      }
    };
  }, [ms]);
  return t;
}
