// The signed-in part of the parlay slip (docs/ui.md "Parlay bets"): a stake, an optional claimed
// boost, "Request quotes" (the authenticated request), then the price (and the unboosted one when
// it differs), the quotes arriving, a countdown to the deadline and Accept, which wagers at the
// best quote with the shown price as the most it pays. A 409 says why and offers a new request. The
// quotes come from the account's private stream (parlay-live.ts); REST reads the request only when
// frames were lost or while the stream is down.
import { useEffect, useRef, useState } from 'preact/hooks';
import { accountStream, useAccountStreamUp } from './account-stream.ts';
import { ApiError } from './api.ts';
import { meaning } from './codes.ts';
import { cash, odds, when } from './format.ts';
import {
  bestQuote,
  cancelRequest,
  createRequest,
  isClaimed,
  isOpen,
  needsNewRequest,
  newClientOrderId,
  type ParlayWire,
  type RequestWire,
  stakeCents,
  wager,
} from './parlay-bet.ts';
import { RequestWatch } from './parlay-live.ts';
import { boosts, myParlaysChanged, oddsMode, ownAction } from './state.ts';
import { useStore, useTick } from './store.ts';

function problem(e: unknown): { code: string; text: string } {
  if (e instanceof ApiError) return { code: e.code, text: meaning(e.code, e.message) };
  return { code: 'NETWORK', text: e instanceof Error ? e.message : String(e) };
}

export function BetSlip({ outcomeIds }: { outcomeIds: string[] }) {
  const mode = useStore(oddsMode);
  const offered = useStore(boosts);
  const live = useAccountStreamUp();
  const [stake, setStake] = useState('10.00');
  const [boostId, setBoostId] = useState('');
  const [req, setReq] = useState<RequestWire | undefined>();
  const [err, setErr] = useState<{ code: string; text: string; retry: boolean } | undefined>();
  const [busy, setBusy] = useState(false);
  const [placed, setPlaced] = useState<ParlayWire | undefined>();
  const watch = useRef<RequestWatch | undefined>(undefined);
  const now = useTick(250);
  const cents = stakeCents(stake);
  const claimed = (offered ?? []).filter(isClaimed);

  const openId = useRef<string | undefined>(undefined);
  const stopWatching = () => {
    watch.current?.stop();
    watch.current = undefined;
  };
  // A request left behind (new legs, a new request, the slip closed) is cancelled rather than left
  // open to its deadline: makers stop quoting it and it stops counting against the open limit.
  const dropOpen = () => {
    stopWatching();
    const id = openId.current;
    openId.current = undefined;
    if (id !== undefined) void cancelRequest(id).catch(() => {});
  };
  // New legs make the request (and what was placed) stale.
  useEffect(() => {
    dropOpen();
    setReq(undefined);
    setErr(undefined);
    setPlaced(undefined);
  }, [outcomeIds.join(',')]);
  useEffect(() => dropOpen, []);

  const ask = async () => {
    dropOpen();
    setBusy(true);
    setErr(undefined);
    setPlaced(undefined);
    try {
      const r = await createRequest(outcomeIds, cents, boostId === '' ? null : boostId);
      openId.current = r.id;
      const stream = accountStream.get();
      if (stream === undefined) {
        setReq(r);
        return;
      }
      watch.current = new RequestWatch(
        r,
        stream,
        (next) => {
          setReq(next);
          if (!isOpen(next, Date.now())) openId.current = undefined;
        },
        (e) => setErr({ ...problem(e), retry: true }),
      );
    } catch (e) {
      setReq(undefined);
      setErr({ ...problem(e), retry: true });
    } finally {
      setBusy(false);
    }
  };

  const best = req ? bestQuote(req, now) : undefined;
  const open = req !== undefined && isOpen(req, now);
  const left = req ? Date.parse(req.expiresAt) - now : 0;

  const accept = async () => {
    if (!req || !best || cents === undefined) return;
    setBusy(true);
    setErr(undefined);
    try {
      const p = await wager(req.id, cents, best.price, newClientOrderId());
      stopWatching();
      openId.current = undefined;
      setPlaced(p);
      setReq(undefined);
      myParlaysChanged.update((n) => n + 1);
      ownAction.update((n) => n + 1); // the balance paid the stake and fee
    } catch (e) {
      setErr({ ...problem(e), retry: needsNewRequest(e) });
    } finally {
      setBusy(false);
    }
  };

  const price = req ? Number(req.price) : undefined;
  const unboosted = req ? Number(req.unboostedPrice) : undefined;
  return (
    <div class="bet" data-testid="parlay-bet">
      <h3>Place this parlay</h3>
      <div class="bet-form">
        <label>
          Stake (Cash, to the cent)
          <input
            name="parlay_stake"
            inputMode="decimal"
            value={stake}
            aria-invalid={cents === undefined}
            onInput={(e) => setStake(e.currentTarget.value)}
          />
        </label>
        {claimed.length > 0 && (
          <label>
            Boost
            <select name="parlay_boost" value={boostId} onChange={(e) => setBoostId(e.currentTarget.value)}>
              <option value="">No boost</option>
              {claimed.map((b) => (
                <option key={b.id} value={b.id}>
                  {b.kind} {b.value ?? ''}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="button" onClick={ask} disabled={busy || cents === undefined}>
          {req ? 'Request new quotes' : 'Request quotes'}
        </button>
      </div>
      {cents === undefined && <p class="hint">Type a stake such as 10 or 2.50.</p>}
      <div aria-live="polite">
        {req && (
          <dl class="offer" data-testid="parlay-request">
            <div>
              <dt>Price</dt>
              <dd class="num" title={req.price}>
                {odds(price, mode)}
              </dd>
            </div>
            {unboosted !== undefined && unboosted !== price && (
              <div>
                <dt>Without boost</dt>
                <dd class="num" title={req.unboostedPrice}>
                  <s>{odds(unboosted, mode)}</s>
                </dd>
              </div>
            )}
            <div>
              <dt>Status</dt>
              <dd>{open ? 'Open' : req.status === 'Unfilled' ? 'Expired' : req.status}</dd>
            </div>
            <div>
              <dt>Closes in</dt>
              <dd class="num">
                <time
                  dateTime={req.expiresAt}
                  title={`until ${when(req.expiresAt).utc}`}
                  data-testid="bet-countdown"
                >
                  {left > 0 ? `${(left / 1000).toFixed(1)} s` : 'closed'}
                </time>
              </dd>
            </div>
          </dl>
        )}
        {req && (
          <>
            <h4>
              Quotes ({req.quotes.length}){' '}
              <span class="hint" data-testid="quote-source" data-live={live}>
                {live ? 'arriving live' : 'read every second (stream down)'}
              </span>
            </h4>
            {req.quotes.length === 0 ? (
              <p class="hint">Waiting for quotes…</p>
            ) : (
              <ul class="quotes" data-testid="parlay-quotes">
                {req.quotes.map((q) => (
                  <li key={q.id} class={q.id === best?.id ? 'best' : undefined}>
                    <span class="num" title={String(q.price)}>
                      {odds(q.price, mode)}
                    </span>{' '}
                    up to <span class="num">{cash(q.maxQty / 100)}</span> payout
                    {q.id === best?.id ? ' (best)' : Date.parse(q.expiresAt) <= now ? ' (expired)' : ''}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
        {req && open && (
          <button
            type="button"
            class="accept"
            onClick={accept}
            disabled={busy || !best || cents === undefined}
          >
            {best && cents !== undefined
              ? `Accept: stake ${cash(cents / 100)} at ${odds(best.price, mode)}`
              : 'Accept (no quote yet)'}
          </button>
        )}
        {req && !open && !placed && (
          <p class="hint">This request is closed. Request new quotes for a fresh price.</p>
        )}
        {placed && (
          <p class="placed" role="status" data-testid="parlay-placed">
            Placed: stake {cash(placed.stake)} at {odds(placed.price, mode)} for a payout of{' '}
            {cash(placed.qty / 100)} (fee {cash(placed.fee)}). See “My parlays”.
          </p>
        )}
        {err && (
          <div class="decline" role="alert" data-testid="parlay-bet-error">
            <p>
              <strong>Not placed.</strong> {err.text} <code>{err.code}</code>
            </p>
            {err.retry && (
              <button type="button" onClick={ask} disabled={busy || cents === undefined}>
                Request a new price
              </button>
            )}
          </div>
        )}
      </div>
    </div>
  );
}
