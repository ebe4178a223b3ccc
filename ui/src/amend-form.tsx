// The amend control of an open order: its price on the tick stepper and its remaining quantity,
// sent as `PATCH /nbx/v2/emm/orders/{id}` with only what changed (amend.ts). Enter sends, Escape
// closes. A server without the route is told apart from a rejected amend: the page says amending
// is not available and hides the control from then on.
import { useState } from 'preact/hooks';
import { amendOrder, amendUnavailable } from './amend.ts';
import type { OrderWire } from './api.ts';
import { price, qty } from './format.ts';
import { PriceStepper } from './price-stepper.tsx';
import { snap } from './price-steps.ts';

export function AmendForm({
  order,
  ticks,
  label,
  onDone,
  onUnavailable,
  describe,
}: {
  order: OrderWire;
  ticks: number[];
  label: string;
  /** The result in words; the form closes. */
  onDone: (msg: string) => void;
  onUnavailable: () => void;
  describe: (e: unknown) => string;
}) {
  const [px, setPx] = useState(order.price.toFixed(3));
  const [amount, setAmount] = useState(String(order.qty));
  const [busy, setBusy] = useState(false);
  const hint = `amend-hint-${order.id}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    const p = snap(Number(px), ticks) ?? Number(px);
    const q = /^\d+$/.test(amount.trim()) ? Number(amount) : Number.NaN;
    setBusy(true);
    try {
      const o = await amendOrder(order, { price: p, qty: q });
      onDone(o === undefined ? 'Nothing to change.' : `Order amended: ${qty(o.qty)} at ${price(o.price)}.`);
    } catch (x) {
      if (amendUnavailable(x)) {
        onUnavailable();
        onDone('Amending is not available on this server: cancel the order and place a new one.');
      } else onDone(`Amend rejected: ${describe(x)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="amend"
      onSubmit={submit}
      aria-label={`Amend the order on ${label}`}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDone('');
      }}
    >
      <label htmlFor={`amend-price-${order.id}`}>
        Price
        <PriceStepper
          id={`amend-price-${order.id}`}
          value={px}
          onChange={setPx}
          ticks={ticks}
          name="amend-price"
          describedBy={hint}
          label="amend"
        />
      </label>
      <label>
        Remaining qty
        <input
          name="amend-qty"
          inputMode="numeric"
          value={amount}
          onInput={(e) => setAmount(e.currentTarget.value)}
          required
        />
      </label>
      <p class="hint" id={hint}>
        Enter sends, Escape closes.
      </p>
      <div class="row">
        <button type="submit" disabled={busy}>
          Amend
        </button>
        <button type="button" onClick={() => onDone('')}>
          Keep
        </button>
      </div>
    </form>
  );
}
