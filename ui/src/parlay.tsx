// The parlay slip: outcomes added from any event; with two or more legs it asks the unauthenticated
// parlay endpoint (docs/http.md "Parlay price") and shows the offer, counting down to its expiry and
// asking again when it runs out, or each decline's reason in plain words. Signed in, it also places the
// bet (bet-slip.tsx).
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type ParlayOffer, requestParlay } from './api.ts';
import { BetSlip } from './bet-slip.tsx';
import { meaning } from './codes.ts';
import { americanOdds, decimalOdds, qty, when } from './format.ts';
import { outcomeLabel } from './names.ts';
import { signedIn, slip, toggleLeg } from './state.ts';
import { useStore, useTick } from './store.ts';

interface Decline {
  code: string;
  message: string;
  details: { outcomeId: string | null; code: string; message: string }[];
}

export function ParlaySlip() {
  const legs = useStore(slip);
  const who = useStore(signedIn);
  const [offer, setOffer] = useState<ParlayOffer | undefined>();
  const [decline, setDecline] = useState<Decline | undefined>();
  const [busy, setBusy] = useState(false);
  const [asked, setAsked] = useState(0);
  const now = useTick(250);

  useEffect(() => {
    setOffer(undefined);
    setDecline(undefined);
    if (legs.length < 2) return;
    let stale = false;
    setBusy(true);
    requestParlay(legs.map((l) => l.outcomeId))
      .then(
        (o) => !stale && setOffer(o),
        (e: unknown) => {
          if (stale) return;
          if (e instanceof ApiError) {
            const details = Array.isArray(e.body.details) ? (e.body.details as Decline['details']) : [];
            setDecline({ code: e.code, message: e.message, details });
          } else setDecline({ code: 'NETWORK', message: String(e), details: [] });
        },
      )
      .finally(() => !stale && setBusy(false));
    return () => {
      stale = true;
    };
  }, [legs, asked]);

  const p = offer ? Number(offer.price) : undefined;
  const maxQty = offer?.maxQty ?? offer?.maxQuantity;
  const expires = offer?.expiresAt ? when(offer.expiresAt) : undefined;
  const left = offer?.expiresAt ? Date.parse(offer.expiresAt) - now : undefined;
  // An offer is firm only until it expires: ask again then (once per offer), so the slip never
  // shows a stale price as if it were still good.
  useEffect(() => {
    if (left !== undefined && left <= 0 && !busy) setAsked((n) => n + 1);
  }, [left !== undefined && left <= 0, busy]);
  return (
    <section class="panel slip" aria-labelledby="slip-h">
      <h2 id="slip-h">Parlay slip</h2>
      {legs.length === 0 ? (
        <p class="hint">
          Press “+ Parlay” on outcomes of any events to build a parlay. No sign-in needed for a price; sign in
          to place it.
        </p>
      ) : (
        <ul class="legs">
          {legs.map((l) => (
            <li key={l.outcomeId}>
              <span>{l.label}</span>
              <button type="button" class="small" onClick={() => toggleLeg(l)}>
                Remove<span class="sr-only"> {l.label}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {legs.length === 1 && <p class="hint">Add one more leg for a price.</p>}
      <div class="quote" aria-live="polite" aria-busy={busy}>
        {offer && p !== undefined && (
          <dl class="offer" data-testid="parlay-offer">
            <div>
              <dt>Price</dt>
              <dd class="num">{offer.price}</dd>
            </div>
            <div>
              <dt>Decimal odds</dt>
              <dd class="num">
                {typeof offer.decimalOdds === 'number' ? offer.decimalOdds.toFixed(2) : decimalOdds(p)}
              </dd>
            </div>
            <div>
              <dt>American odds</dt>
              <dd class="num">
                {typeof offer.americanOdds === 'number'
                  ? `${offer.americanOdds > 0 ? '+' : '−'}${Math.abs(offer.americanOdds)}`
                  : americanOdds(p)}
              </dd>
            </div>
            {maxQty !== undefined && (
              <div>
                <dt>Max quantity</dt>
                <dd class="num">{qty(maxQty)}</dd>
              </div>
            )}
            {expires && left !== undefined && (
              <div>
                <dt>Valid for</dt>
                <dd class="num">
                  <time
                    dateTime={offer.expiresAt}
                    title={`until ${expires.utc}`}
                    data-testid="parlay-countdown"
                  >
                    {left > 0 ? `${(left / 1000).toFixed(1)} s` : 'refreshing…'}
                  </time>
                </dd>
              </div>
            )}
          </dl>
        )}
        {decline && (
          <div class="decline" role="alert" data-testid="parlay-decline">
            <p>
              <strong>Cannot price this parlay.</strong> {meaning(decline.code, decline.message)}
            </p>
            {decline.details.length > 0 && (
              <ul>
                {decline.details.map((d, i) => (
                  <li key={i}>
                    {d.outcomeId ? `${outcomeLabel(d.outcomeId)}: ` : ''}
                    {meaning(d.code, d.message)} <code>{d.code}</code>
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
      {who && legs.length >= 2 && <BetSlip outcomeIds={legs.map((l) => l.outcomeId)} />}
      {legs.length > 0 && (
        <div class="row">
          {legs.length >= 2 && (
            <button type="button" onClick={() => setAsked((n) => n + 1)} disabled={busy}>
              Refresh price
            </button>
          )}
          <button type="button" onClick={() => slip.set([])}>
            Clear slip
          </button>
        </div>
      )}
    </section>
  );
}
