// A value a page reads now and again every `everyMs` while it is shown (a hidden tab does not
// poll), read anew at once when `deps` change. An answer that arrives after the page moved on is
// dropped; a failed read keeps the last value and reports the error in words. A read made of
// several requests may show what it has so far through `partial`, until its first answer is
// complete (a repeat read replaces the whole value at once, so rows do not come and go).
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export function usePolled<T>(
  read: (partial: (sofar: T) => void) => Promise<T>,
  everyMs: number,
  deps: readonly unknown[],
): { value: T | undefined; error: string | undefined } {
  const [value, setValue] = useState<T | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let stop = false;
    let complete = false;
    const partial = (v: T) => {
      if (!stop && !complete) setValue(v);
    };
    const load = () =>
      read(partial).then(
        (v) => {
          if (stop) return;
          complete = true;
          setValue(v);
          setError(undefined);
        },
        (e: unknown) => !stop && setError(e instanceof ApiError ? `${e.message} (${e.code})` : String(e)),
      );
    void load();
    const h = setInterval(() => document.visibilityState !== 'hidden' && void load(), everyMs);
    return () => {
      stop = true;
      clearInterval(h);
    };
  }, deps);
  return { value, error };
}
