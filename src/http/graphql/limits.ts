// Query cost limit for /v1/graphql (docs/graphql.md). Depth is bounded by mercurius's
// `queryDepth`; this rule bounds breadth: every field selection costs 1 each time it appears after
// fragments are expanded, so aliases (`a: event {…} b: event {…}`) and fragment fan-out cannot
// multiply the work of one request. A query over the cap fails validation (a GraphQL error, HTTP
// 400) before anything executes.

import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

export function costLimitRule(maxCost: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of context.getDocument().definitions) {
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    }
    const cost = (set: SelectionSetNode | undefined, inFragments: Set<string>, acc: { n: number }): void => {
      if (!set || acc.n > maxCost) return;
      for (const s of set.selections) {
        if (s.kind === Kind.FIELD) {
          acc.n++;
          cost(s.selectionSet, inFragments, acc);
        } else if (s.kind === Kind.INLINE_FRAGMENT) {
          cost(s.selectionSet, inFragments, acc);
        } else {
          const name = s.name.value;
          const f = fragments.get(name);
          // A fragment cycle is reported by graphql's own NoFragmentCycles rule; stop here.
          if (!f || inFragments.has(name)) continue;
          inFragments.add(name);
          cost(f.selectionSet, inFragments, acc);
          inFragments.delete(name);
        }
        if (acc.n > maxCost) return;
      }
    };
    return {
      OperationDefinition(node) {
        const acc = { n: 0 };
        cost(node.selectionSet, new Set(), acc);
        if (acc.n > maxCost) {
          context.reportError(
            new GraphQLError(`Query cost exceeds the limit of ${maxCost} field selections`, {
              nodes: [node],
            }),
          );
        }
      },
    };
  };
}
