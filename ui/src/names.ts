// Outcome and market labels learned from every markets answer the page has seen, so orders,
// fills, positions and parlay legs (which carry ids only) can be shown by name.
import type { MarketWire } from './api.ts';

export interface OutcomeLabel {
  outcome: string;
  market: string;
  marketId: string;
  eventId: string;
}

const labels = new Map<string, OutcomeLabel>();

export function learn(markets: MarketWire[]): void {
  for (const m of markets)
    for (const o of m.outcomes)
      labels.set(o.id, { outcome: o.description, market: m.description, marketId: m.id, eventId: m.eventId });
}

export function outcomeLabel(id: string): string {
  const l = labels.get(id);
  return l ? `${l.outcome} · ${l.market}` : `outcome ${id.slice(0, 8)}`;
}

export function outcomeInfo(id: string): OutcomeLabel | undefined {
  return labels.get(id);
}
