// The order ticket of the trading panel: buy the outcome chosen on the board or a ladder at a price
// snapped to the tick table, with a time in force; the answer is reported through onResult.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type FillWire, type OrderWire, traderCall } from './api.ts';
import { cash, price, qty } from './format.ts';
import { PriceStepper } from './price-stepper.tsx';
import { snap } from './price-steps.ts';
import { problem } from './problem.ts';
import { ownAction, ticket } from './state.ts';
import { useStore } from './store.ts';

const TIFS = [
  ['GTC', 'Good till cancelled'],
  ['IOC', 'Immediate or cancel'],
  ['FOK', 'Fill or kill'],
  ['PO', 'Post only'],
  ['GTT', 'Good till time'],
] as const;

export function OrderTicket({ onResult, ticks }: { onResult: (m: string) => void; ticks: number[] }) {
  const t = useStore(ticket);
  const [px, setPx] = useState('');
  const [amount, setAmount] = useState('100');
  const [tif, setTif] = useState('GTC');
  const [ttl, setTtl] = useState('60000');
  const [busy, setBusy] = useState(false);

  const form = useRef<HTMLFormElement>(null);

  // A layout effect, not useEffect: a plain effect waits for the next animation frame, which a busy
  // page may hold back, and would then overwrite a price typed in the meantime with the ticket's.
  useLayoutEffect(() => {
    if (!t) return;
    setPx(t.price.toFixed(3));
    // On a phone the panel is below the whole event: bring the ticket into view (no movement when
    // it is already visible, as on a desktop).
    form.current?.scrollIntoView({ block: 'nearest' });
  }, [t]);

  if (!t)
    return (
      <p class="hint">Press “Trade” on an outcome (or click a ladder price) to fill in an order ticket.</p>
    );

  const place = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const body: Record<string, unknown> = {
        outcomeId: t.outcomeId,
        price: snap(Number(px), ticks) ?? Number(px),
        qty: Number(amount),
        currency: 'CASH',
        tif,
      };
      if (tif === 'GTT') body.ttl = Number(ttl);
      const o = await traderCall<OrderWire & { fills?: FillWire[] }>(
        'POST',
        '/nbx/v2/emm/orders/place',
        body,
      );
      const filled = o.filledQty ?? o.originalQty - o.qty;
      onResult(
        `Order ${o.status.toLowerCase()}: ${qty(filled)} of ${qty(o.originalQty)} filled at ${price(o.price)} or better` +
          (o.status === 'RESTING' ? `, ${qty(o.qty)} resting.` : '.'),
      );
    } catch (x) {
      onResult(`Rejected: ${problem(x)}`);
    } finally {
      setBusy(false);
      ownAction.update((n) => n + 1);
    }
  };

  const snapped = snap(Number(px), ticks);
  const units = /^\d+$/.test(amount.trim()) ? Number(amount) : Number.NaN;
  const cost = snapped !== undefined && units > 0 ? snapped * units * 0.01 : Number.NaN;
  return (
    <form
      ref={form}
      class="ticket"
      onSubmit={place}
      aria-label="Order ticket"
      onKeyDown={(e) => {
        if (e.key === 'Escape') ticket.set(undefined);
      }}
    >
      <p>
        Buy <strong>{t.label}</strong>
      </p>
      <div class="grid2">
        <label htmlFor="ticket-price">
          Price
          <PriceStepper
            id="ticket-price"
            value={px}
            onChange={setPx}
            ticks={ticks}
            name="price"
            describedBy="price-hint"
          />
        </label>
        <label>
          Quantity (cents of payout)
          <input
            name="qty"
            inputMode="numeric"
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
            required
          />
        </label>
        <label>
          Time in force
          <select value={tif} onChange={(e) => setTif(e.currentTarget.value)} name="tif">
            {TIFS.map(([v, l]) => (
              <option key={v} value={v}>
                {v}: {l}
              </option>
            ))}
          </select>
        </label>
        {tif === 'GTT' && (
          <label>
            Lifetime (ms)
            <input
              name="ttl"
              inputMode="numeric"
              value={ttl}
              onInput={(e) => setTtl(e.currentTarget.value)}
            />
          </label>
        )}
      </div>
      <p class="hint" id="price-hint">
        {snapped !== undefined &&
          snapped.toFixed(3) !== px.trim() &&
          `Sent as ${snapped.toFixed(3)}, the nearest tick. `}
        Costs <span class="num">{Number.isFinite(cost) ? cash(cost) : '—'}</span> Cash (plus the taker fee if
        it trades at once); pays <span class="num">{units > 0 ? cash(units * 0.01) : '—'}</span> Cash if it
        wins. Arrow keys step the price by one tick; Enter places, Escape closes.
      </p>
      <div class="row">
        <button type="submit" disabled={busy}>
          Place order
        </button>
        <button type="button" onClick={() => ticket.set(undefined)}>
          Close ticket
        </button>
      </div>
    </form>
  );
}
