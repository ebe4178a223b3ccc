// The Tickbook UI (docs/ui.md): explorer, parlay slip and sandbox trading over the public API.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Board } from './board.tsx';
import { EventList } from './event-list.tsx';
import { EventPage } from './event-page.tsx';
import { ODDS_MODES, type OddsMode } from './format.ts';
import { ParlayAccount } from './my-parlays.tsx';
import { ParlaySlip } from './parlay.tsx';
import { oddsMode } from './state.ts';
import { useStore } from './store.ts';
import { Trading } from './trading.tsx';
import './style.css';

function useRoute(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function OddsSwitch() {
  const mode = useStore(oddsMode);
  return (
    <label class="odds-switch">
      Prices as{' '}
      <select value={mode} onChange={(e) => oddsMode.set(e.currentTarget.value as OddsMode)} name="odds">
        {ODDS_MODES.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
}

function App() {
  const route = useRoute();
  const m = /^#\/event\/([0-9a-f-]{36})$/.exec(route);
  const eventId = m?.[1];
  useEffect(() => {
    // Move focus to the new page's heading, so keyboard and screen-reader users land on it.
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [eventId, route]);
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/">
          Tickbook
        </a>
        <span class="tag">sandbox exchange</span>
        <nav aria-label="Site">
          <a href="#/">Games</a>
          <a href="#/events">All events</a>
          <a href="/docs">API reference</a>
        </nav>
        <OddsSwitch />
      </header>
      <div class="layout">
        <main id="content" tabIndex={-1}>
          {eventId ? (
            <EventPage key={eventId} eventId={eventId} />
          ) : route === '#/events' ? (
            <EventList />
          ) : (
            <Board />
          )}
        </main>
        <aside aria-label="Parlay slip and trading">
          <ParlaySlip />
          <Trading />
          <ParlayAccount />
        </aside>
      </div>
      <footer>
        Every figure on this page comes from Tickbook's public API. Depth charts by{' '}
        <a href="https://www.tradingview.com/" rel="noopener">
          TradingView
        </a>{' '}
        Lightweight Charts™.
      </footer>
    </>
  );
}

render(<App />, document.getElementById('app')!);
