// "My parlays" and the claimable boosts for the signed-in trader (docs/ui.md "Parlay bets"): the
// parlays of `GET /nbx/v1/parlays` with each leg's status, kept current by the private stream's
// parlayFill and parlayUpdate frames (parlay-live.ts; REST every 5 s only while the stream is down);
// the boosts of `GET /nbx/v1/boosts` with a Claim button, or nothing when the server has no such route.
import { useEffect, useRef, useState } from 'preact/hooks';
import { accountStream } from './account-stream.ts';
import { ApiError } from './api.ts';
import { meaning } from './codes.ts';
import { cash, odds, when } from './format.ts';
import { outcomeLabel } from './names.ts';
import { type Boost, claimBoost, isClaimed, listBoosts, type ParlayWire } from './parlay-bet.ts';
import { type ParlayFilter, ParlaysWatch } from './parlay-live.ts';
import { boosts, myParlaysChanged, oddsMode, signedIn } from './state.ts';
import { useStore } from './store.ts';

const BOOSTS_MS = 30_000;

const LEG_WORDS: Record<string, string> = { TBD: 'TBD', WIN: 'WIN', LOSS: 'LOSS', PUSH: 'PUSH' };

function problem(e: unknown): string {
  if (e instanceof ApiError) return `${meaning(e.code, e.message)} (${e.code})`;
  return e instanceof Error ? e.message : String(e);
}

export function MyParlays() {
  const mode = useStore(oddsMode);
  const stream = useStore(accountStream);
  const [list, setList] = useState<ParlayWire[] | undefined>();
  const [status, setStatus] = useState<ParlayFilter>('');
  const [err, setErr] = useState<string | undefined>();
  const watch = useRef<ParlaysWatch | undefined>(undefined);

  useEffect(() => {
    if (stream === undefined) return;
    const w = new ParlaysWatch(
      status,
      stream,
      (l) => {
        setList(l);
        setErr(undefined);
      },
      (e: unknown) => setErr(problem(e)),
    );
    watch.current = w;
    return () => {
      w.stop();
      watch.current = undefined;
    };
  }, [status, stream]);

  // The trader's own placement: the stream's parlayFill brings it, or a read when it is down.
  useEffect(() => myParlaysChanged.subscribe(() => watch.current?.placed()), []);

  return (
    <div class="my-parlays" data-testid="my-parlays">
      <h3>My parlays</h3>
      <label>
        Show{' '}
        <select
          name="parlay_status"
          value={status}
          onChange={(e) => setStatus(e.currentTarget.value as ParlayFilter)}
        >
          <option value="">All</option>
          <option value="OPEN">Open</option>
          <option value="SETTLED">Settled</option>
        </select>
      </label>
      {err && (
        <p class="decline" role="alert">
          {err}
        </p>
      )}
      {list && list.length === 0 && <p class="hint">No parlays yet.</p>}
      {list && list.length > 0 && (
        <ul class="parlays">
          {list.map((p) => (
            <li key={p.id} data-testid="my-parlay">
              <p>
                <strong>{p.status}</strong> · {p.role === 'MAKER' ? 'as maker' : 'as taker'} · stake{' '}
                <span class="num">{cash(p.stake)}</span> at{' '}
                <span class="num" title={String(p.price)}>
                  {odds(p.price, mode)}
                </span>{' '}
                · payout <span class="num">{cash(p.qty / 100)}</span>
                {p.payout !== null && (
                  <>
                    {' '}
                    · received <span class="num">{cash(p.payout)}</span>
                  </>
                )}{' '}
                <time dateTime={p.createdAt} title={when(p.createdAt).utc}>
                  {when(p.createdAt).text}
                </time>
              </p>
              <ul class="legs">
                {p.legs.map((l) => (
                  <li key={l.outcomeId}>
                    <span>{outcomeLabel(l.outcomeId)}</span>
                    <span class={`leg-status leg-${l.status.toLowerCase()}`}>
                      {LEG_WORDS[l.status] ?? l.status}
                    </span>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Reads the boosts while signed in; a server without the route leaves `boosts` undefined. */
export function useBoosts(): void {
  useEffect(() => {
    let stale = false;
    let gone = false;
    const read = () => {
      if (gone) return;
      listBoosts().then(
        (b) => {
          if (stale) return;
          if (b === undefined) gone = true;
          boosts.set(b);
        },
        () => {},
      );
    };
    read();
    const h = setInterval(read, BOOSTS_MS);
    return () => {
      stale = true;
      clearInterval(h);
      boosts.set(undefined);
    };
  }, []);
}

export function Boosts() {
  const list = useStore(boosts);
  const [msg, setMsg] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  if (list === undefined) return null;
  const claim = async (b: Boost) => {
    setBusy(b.id);
    setMsg(undefined);
    try {
      await claimBoost(b.id);
      const next = await listBoosts();
      boosts.set(next);
      setMsg('Claimed: pick it in the parlay slip.');
    } catch (e) {
      setMsg(problem(e));
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <div class="boosts" data-testid="boosts">
      <h3>Boosts</h3>
      {list.length === 0 ? (
        <p class="hint">No boosts on offer.</p>
      ) : (
        <ul>
          {list.map((b) => (
            <li key={b.id}>
              <span>
                {b.kind} {b.value ?? ''}
                {b.leagues.length > 0 && ` · ${b.leagues.join(', ')}`}
                {b.minLegs !== null && ` · ${b.minLegs}+ legs`}
                {b.maxStake !== null && ` · stake up to ${cash(b.maxStake)}`}
                {b.remaining !== null && ` · ${b.remaining} left`}
                {b.validTo !== null && ` · until ${when(b.validTo).text}`}
              </span>
              {isClaimed(b) ? (
                <span class="hint">Claimed</span>
              ) : (
                <button type="button" class="small" disabled={busy === b.id} onClick={() => claim(b)}>
                  Claim<span class="sr-only"> {b.kind}</span>
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {msg && <p role="status">{msg}</p>}
    </div>
  );
}

/** The signed-in trader's parlay section: boosts (when the server has them) and "My parlays". */
export function ParlayAccount() {
  const who = useStore(signedIn);
  if (!who) return null;
  return <ParlayAccountIn key={who} />;
}

function ParlayAccountIn() {
  useBoosts();
  return (
    <section class="panel parlay-account" aria-labelledby="my-parlays-h">
      <h2 id="my-parlays-h">Parlay bets</h2>
      <Boosts />
      <MyParlays />
    </section>
  );
}
