// A component that re-renders only when one of its props changed (by identity), so one market's
// tick re-renders that market's card and not the page (docs/ui.md "Live data"). Preact's own `memo`
// lives in preact/compat, a React layer this page does not otherwise need.
import { Component, type FunctionComponent, h } from 'preact';

function sameProps(a: object, b: object): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k in x) if (x[k] !== y[k]) return false;
  for (const k in y) if (!(k in x)) return false;
  return true;
}

export function memo<P extends object>(render: FunctionComponent<P>): FunctionComponent<P> {
  class Memo extends Component<P> {
    shouldComponentUpdate(next: P): boolean {
      return !sameProps(this.props, next);
    }
    render(props: P) {
      return h(render, props);
    }
  }
  return Memo as unknown as FunctionComponent<P>;
}
