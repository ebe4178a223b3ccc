// A price typed or stepped on the tick table (GET /nbx/v2/emm/ticks): − and + (or the arrow keys
// in the field) move one tick; a typed price between ticks snaps to the nearest when the field is
// left. Shared by the order ticket and the amend form.
import { useEffect, useState } from 'preact/hooks';
import { getMarketData } from './api.ts';
import { snap, step } from './price-steps.ts';

let table: Promise<number[]> | undefined;

/** The tick table, read once per page (an error is reported and read again next time). */
export function useTicks(onError: (e: unknown) => void): number[] {
  const [ticks, setTicks] = useState<number[]>([]);
  useEffect(() => {
    table ??= getMarketData<number[]>('/nbx/v2/emm/ticks').then((r) => r.body);
    table.then(setTicks, (e: unknown) => {
      table = undefined;
      onError(e);
    });
  }, [onError]);
  return ticks;
}

export function PriceStepper({
  id,
  value,
  onChange,
  ticks,
  name,
  describedBy,
  label,
}: {
  id: string;
  value: string;
  onChange: (v: string) => void;
  ticks: number[];
  name: string;
  describedBy?: string;
  /** Names the buttons for a screen reader when several steppers are on the page. */
  label?: string;
}) {
  const snapped = snap(Number(value), ticks);
  const stepBy = (n: number) => {
    const next = step(Number(value), ticks, n);
    if (next !== undefined) onChange(next.toFixed(3));
  };
  const of = label ? ` (${label})` : '';
  return (
    <span class="stepper">
      <button type="button" class="small" aria-label={`One tick lower${of}`} onClick={() => stepBy(-1)}>
        −
      </button>
      <input
        id={id}
        name={name}
        inputMode="decimal"
        autoComplete="off"
        value={value}
        aria-describedby={describedBy}
        onInput={(e) => onChange(e.currentTarget.value)}
        onBlur={() => snapped !== undefined && onChange(snapped.toFixed(3))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
            e.preventDefault();
            stepBy(e.key === 'ArrowUp' ? 1 : -1);
          }
        }}
      />
      <button type="button" class="small" aria-label={`One tick higher${of}`} onClick={() => stepBy(1)}>
        +
      </button>
    </span>
  );
}
