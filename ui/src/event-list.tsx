// Leagues and events, filtered like the REST listing (league, type, status, limit, offset).
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type EventWire, getMarketData } from './api.ts';
import { STATUS_WORDS, when } from './format.ts';
import { usePolled } from './poll.ts';

const PAGE = 50;
const POLL_MS = 5000;

export function EventList() {
  const [leagues, setLeagues] = useState<string[]>([]);
  const [types, setTypes] = useState<string[]>([]);
  const [statuses, setStatuses] = useState<string[]>([]);
  const [league, setLeague] = useState('');
  const [type, setType] = useState('');
  const [status, setStatus] = useState('OPEN_PREGAME');
  const [offset, setOffset] = useState(0);
  const [metaError, setMetaError] = useState<string | undefined>();

  useEffect(() => {
    Promise.all([
      getMarketData<string[]>('/nbx/v2/emm/event-metadata/leagues'),
      getMarketData<string[]>('/nbx/v2/emm/event-metadata/types'),
      getMarketData<string[]>('/nbx/v2/emm/event-metadata/statuses'),
    ]).then(
      ([l, t, s]) => {
        setLeagues(l.body);
        setTypes(t.body);
        setStatuses(s.body);
      },
      (e: unknown) => setMetaError(e instanceof ApiError ? e.message : String(e)),
    );
  }, []);

  const listing = usePolled(
    async () => {
      const q = new URLSearchParams();
      if (league) q.set('league', league);
      if (type) q.set('type', type);
      if (status) q.set('status', status);
      q.set('limit', String(PAGE));
      q.set('offset', String(offset));
      return (await getMarketData<EventWire[]>(`/nbx/v2/emm/events?${q}`)).body;
    },
    POLL_MS,
    [league, type, status, offset],
  );
  const events = listing.value;
  const error = listing.error ?? metaError;

  const filter = (set: (v: string) => void) => (e: Event) => {
    set((e.target as HTMLSelectElement).value);
    setOffset(0);
  };

  return (
    <section>
      <h1 tabIndex={-1}>Events</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          League
          <select value={league} onChange={filter(setLeague)}>
            <option value="">All leagues</option>
            {leagues.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select value={type} onChange={filter(setType)}>
            <option value="">All types</option>
            {types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={filter(setStatus)}>
            <option value="">All statuses</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {STATUS_WORDS[s] ?? s}
              </option>
            ))}
          </select>
        </label>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {events === undefined ? (
        <p aria-busy="true">Loading events…</p>
      ) : events.length === 0 ? (
        <p>No events match these filters.</p>
      ) : (
        <div class="scroll-x">
          <table class="events">
            <caption class="sr-only">Events, earliest start first</caption>
            <thead>
              <tr>
                <th scope="col">Start</th>
                <th scope="col">League</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Markets
                </th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => {
                const t = when(e.scheduledStart);
                return (
                  <tr key={e.id}>
                    <td class="num">
                      <time dateTime={e.scheduledStart} title={t.utc}>
                        {t.text}
                      </time>
                    </td>
                    <td>{e.league}</td>
                    <td>
                      <a href={`#/event/${e.id}`}>{e.description}</a>
                    </td>
                    <td>
                      <span class={`status s-${e.status}`}>{STATUS_WORDS[e.status] ?? e.status}</span>
                    </td>
                    <td class="num">{e.marketIds.length}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Previous
        </button>
        <span>{events && events.length > 0 ? `${offset + 1}–${offset + events.length}` : ''}</span>
        <button
          type="button"
          disabled={!events || events.length < PAGE}
          onClick={() => setOffset(offset + PAGE)}
        >
          Next
        </button>
      </nav>
    </section>
  );
}
