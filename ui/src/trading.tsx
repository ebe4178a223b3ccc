// Sandbox trading for a signed-in client: balance, open orders, positions, fills; place (price from
// the tick table: order-ticket.tsx), amend one (amend-form.tsx), cancel one, cancel all. Signing in
// is sign-in.tsx; the token lives in memory only (a reload signs out). The panel's state follows
// the account's private stream (account-live.ts): REST loads it and fills in what no frame carries.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type AccountReads, type AccountState, AccountWatch, FILLS_SHOWN } from './account-live.ts';
import { accountStream } from './account-stream.ts';
import { AmendForm } from './amend-form.tsx';
import {
  type BookWire,
  type FillWire,
  getMarketData,
  type OrderWire,
  type PositionWire,
  signOut,
  traderCall,
} from './api.ts';
import { cash, cashExact, clock, price, qty } from './format.ts';
import { outcomeLabel } from './names.ts';
import { OrderTicket } from './order-ticket.tsx';
import { useTicks } from './price-stepper.tsx';
import { problem } from './problem.ts';
import { SignIn } from './sign-in.tsx';
import { ownAction, signedIn } from './state.ts';
import { useStore } from './store.ts';

export function Trading() {
  const who = useStore(signedIn);
  return (
    <section class="panel trading" aria-labelledby="trade-h">
      <h2 id="trade-h">Sandbox trading</h2>
      {who ? <Account who={who} /> : <SignIn />}
    </section>
  );
}

/** Best bids of the positions' outcomes, from their books (conditional reads: mostly 304s). */
async function marksFor(positions: PositionWire[]): Promise<Map<string, number>> {
  const marks = new Map<string, number>();
  const markets = [...new Set(positions.map((p) => p.marketId).filter((m): m is string => !!m))];
  const books = await Promise.all(
    markets.map((m) => getMarketData<BookWire>(`/nbx/v2/emm/book/${m}?currency=CASH`).catch(() => undefined)),
  );
  for (const b of books)
    for (const l of b?.body.outcomeLadders ?? []) {
      const best = l.bids[0]?.price;
      if (best !== undefined) marks.set(l.outcomeId, best);
    }
  return marks;
}

const REST_READS: AccountReads = {
  balance: async () =>
    (await traderCall<{ balance: number }>('GET', '/nbx/v2/emm/account/balance?currency=CASH')).balance,
  orders: () =>
    traderCall<OrderWire[]>('GET', '/nbx/v2/emm/orders/all?currency=CASH&status=RESTING&limit=50'),
  positions: () => traderCall<PositionWire[]>('GET', '/nbx/v2/emm/positions/all?currency=CASH'),
  fills: () => traderCall<FillWire[]>('GET', `/nbx/v2/emm/fills/all?currency=CASH&limit=${FILLS_SHOWN}`),
  marks: marksFor,
};

const EMPTY: AccountState = { orders: [], positions: [], fills: [], marks: new Map() };

function Account({ who }: { who: string }) {
  const [view, setView] = useState<AccountState>(EMPTY);
  const [err, setErr] = useState<string | undefined>();
  const [msg, setMsg] = useState<string | undefined>();
  const [amending, setAmending] = useState<string | undefined>();
  const [amendOff, setAmendOff] = useState(false);
  const action = useStore(ownAction);
  const stream = useStore(accountStream);
  const ticks = useTicks(useCallback((e: unknown) => setMsg(problem(e)), []));
  const watch = useRef<AccountWatch | undefined>(undefined);

  // REST on sign-in, on reconnect and resync; orders and fills from the private stream's frames.
  useEffect(() => {
    if (stream === undefined) return;
    const w = new AccountWatch(
      stream,
      REST_READS,
      (s) => {
        setView(s);
        setErr(undefined);
      },
      (e) => setErr(problem(e)),
    );
    watch.current = w;
    return () => {
      w.stop();
      watch.current = undefined;
    };
  }, [stream]);
  useEffect(() => {
    if (action > 0) watch.current?.acted();
  }, [action]);

  const cancel = async (id: string) => {
    try {
      await traderCall('DELETE', `/nbx/v2/emm/orders/${id}`);
      setMsg('Order cancelled.');
    } catch (e) {
      setMsg(problem(e));
    }
    ownAction.update((n) => n + 1);
  };
  const cancelAll = async () => {
    try {
      const r = await traderCall<unknown[]>('DELETE', '/nbx/v2/emm/kill');
      setMsg(`Cancelled ${Array.isArray(r) ? r.length : 0} open order(s).`);
    } catch (e) {
      setMsg(problem(e));
    }
    ownAction.update((n) => n + 1);
  };

  return (
    <div class="account">
      <p>
        Signed in as <code>{who}</code>{' '}
        <button
          type="button"
          class="small"
          onClick={() => {
            signOut();
            signedIn.set(undefined);
          }}
        >
          Sign out
        </button>
      </p>
      <p class="balance">
        Balance:{' '}
        <span
          class="num"
          data-testid="balance"
          title={view.balance === undefined ? undefined : `${cashExact(view.balance)} Cash`}
        >
          {view.balance === undefined ? '…' : cash(view.balance)}
        </span>{' '}
        Cash
      </p>
      {err && (
        <p class="error" role="alert">
          {err}
        </p>
      )}
      <OrderTicket onResult={setMsg} ticks={ticks} />
      <p class="msg" role="status" aria-live="polite" data-testid="trade-msg">
        {msg ?? ''}
      </p>
      <h3>Open orders</h3>
      <div class="row">
        <button type="button" onClick={cancelAll} disabled={view.orders.length === 0}>
          Cancel all
        </button>
      </div>
      <table class="small-table" data-testid="orders">
        <caption class="sr-only">Open orders</caption>
        <thead>
          <tr>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">
              Price
            </th>
            <th scope="col" class="num">
              Open qty
            </th>
            <th scope="col">
              <span class="sr-only">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {view.orders.length === 0 && (
            <tr>
              <td colSpan={4} class="empty">
                No open orders.
              </td>
            </tr>
          )}
          {view.orders.map((o) => [
            <tr key={o.id} data-order={o.id}>
              <td>{outcomeLabel(o.outcomeId)}</td>
              <td class="num">{price(o.price)}</td>
              <td class="num">{qty(o.qty)}</td>
              <td class="actions">
                {!amendOff && (
                  <button
                    type="button"
                    class="small"
                    aria-expanded={amending === o.id}
                    onClick={() => setAmending(amending === o.id ? undefined : o.id)}
                  >
                    Amend
                    <span class="sr-only">
                      {' '}
                      order at {price(o.price)} on {outcomeLabel(o.outcomeId)}
                    </span>
                  </button>
                )}
                <button type="button" class="small" onClick={() => cancel(o.id)}>
                  Cancel
                  <span class="sr-only">
                    {' '}
                    order at {price(o.price)} on {outcomeLabel(o.outcomeId)}
                  </span>
                </button>
              </td>
            </tr>,
            amending === o.id && !amendOff && (
              <tr key={`${o.id}-amend`} class="amend-row">
                <td colSpan={4}>
                  <AmendForm
                    order={o}
                    ticks={ticks}
                    label={outcomeLabel(o.outcomeId)}
                    describe={problem}
                    onUnavailable={() => setAmendOff(true)}
                    onDone={(m) => {
                      setAmending(undefined);
                      if (m) {
                        setMsg(m);
                        ownAction.update((n) => n + 1);
                      }
                    }}
                  />
                </td>
              </tr>
            ),
          ])}
        </tbody>
      </table>
      <h3>Positions</h3>
      <table class="small-table" data-testid="positions">
        <caption class="sr-only">Positions</caption>
        <thead>
          <tr>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">
              Size
            </th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col" class="num" title="At the best bid: what selling now would bring">
              Value
            </th>
            <th scope="col" class="num">
              P&amp;L
            </th>
          </tr>
        </thead>
        <tbody>
          {view.positions.length === 0 && (
            <tr>
              <td colSpan={5} class="empty">
                No positions.
              </td>
            </tr>
          )}
          {view.positions.map((p) => {
            const size = Number(p.size ?? p.qty ?? 0);
            const cost = Number(p.cost ?? 0);
            const mark = view.marks.get(p.outcomeId);
            // Size is payout in cents: at a bid of q it sells for size × q cents.
            const value = mark === undefined ? undefined : size * mark * 0.01;
            const pnl = value === undefined ? undefined : value - cost;
            return (
              <tr key={p.outcomeId} data-position={p.outcomeId}>
                <td>{outcomeLabel(p.outcomeId)}</td>
                <td class="num">{qty(size)}</td>
                <td class="num" title={cashExact(cost)}>
                  {cash(cost)}
                </td>
                <td
                  class="num"
                  title={
                    value === undefined ? 'No bid to sell into' : `${cashExact(value)} at ${price(mark)}`
                  }
                >
                  {value === undefined ? '—' : cash(value)}
                </td>
                <td class={`num ${pnl === undefined ? '' : pnl >= 0 ? 'up' : 'down'}`} data-testid="pnl">
                  {pnl === undefined ? '—' : `${pnl >= 0 ? '+' : '−'}${cash(Math.abs(pnl))}`}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h3>Fills</h3>
      <table class="small-table" data-testid="fills">
        <caption class="sr-only">Recent fills</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">
              Qty @ price
            </th>
          </tr>
        </thead>
        <tbody>
          {view.fills.length === 0 && (
            <tr>
              <td colSpan={3} class="empty">
                No fills yet.
              </td>
            </tr>
          )}
          {view.fills.map((f) => {
            const c = clock(Date.parse(f.created_at ?? f.createdAt ?? ''));
            return (
              <tr key={f.id} data-fill={f.id}>
                <td>
                  <time title={c.utc}>{c.text}</time>
                </td>
                <td>
                  {outcomeLabel(f.outcomeId)} {f.isTaker ? '(taker)' : '(maker)'}
                </td>
                <td class="num">
                  {qty(f.qty)} @ {price(f.price)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
