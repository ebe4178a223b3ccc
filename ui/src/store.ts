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

/** Re-renders every `ms` (ages, countdowns). */
export function useTick(ms: number): number {
  const [t, setT] = useState(Date.now());
  useEffect(() => {
    const h = setInterval(() => setT(Date.now()), ms);
    return () => clearInterval(h);
  }, [ms]);
  return t;
}
