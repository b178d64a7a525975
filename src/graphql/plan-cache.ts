import type { PrismaPlanCache, PrismaPlanOptions } from '@pothos/plugin-prisma';
import { visit, type FieldNode, type GraphQLResolveInfo } from 'graphql';
import { fastPathUses } from '../fast-paths.js';

/**
 * The prisma plugin's query plans kept across requests, through its `planCache` option (added by
 * patches/@pothos+plugin-prisma+4.17.0.patch, see patches/README.md). Without it, the plugin plans
 * the query of every prismaField, prismaConnection, node and fallback on each request: it walks
 * the selection set and calls every select function in it. A plan depends on the document, the
 * values of the variables used beneath the field, and whatever select functions read. So a plan is
 * kept per field node and those variables' values, and only when its walk did not touch the
 * context: it is walked first with a context that refuses every use, and a select function that
 * reads the context leaves its field planned on every request, as without the cache. The plugin
 * plays a kept plan with each request's own context and info.
 */

type Walk = Parameters<PrismaPlanCache['plan']>[1];
type WalkedPlan = NonNullable<ReturnType<Walk>>;

interface KeptPlan {
  plan: WalkedPlan;
  /** The plugin's initial selection it was walked with: a caller passing another one plans afresh. */
  initial: PrismaPlanOptions['initial'];
}

interface FieldPlans {
  /** Variables used anywhere beneath the field, fragments included: what else its plans depend on. */
  variables: string[];
  plans: Map<string, KeptPlan | 'not kept'>;
}

/** Plans kept per field node: one per combination of its variables' values, for the first few seen. */
const maxPlansPerField = 32;

const refuse = (): never => {
  throw new Error('A select function read the context.');
};

/** A context every use of which throws: what a plan that may be kept is walked with. */
const refusingContext = new Proxy(
  {},
  { get: refuse, has: refuse, set: refuse, ownKeys: refuse, getOwnPropertyDescriptor: refuse, defineProperty: refuse, deleteProperty: refuse, getPrototypeOf: refuse },
);

function variablesBeneath(fieldNode: FieldNode, info: GraphQLResolveInfo): string[] {
  const names = new Set<string>();
  const visited = new Set<string>();
  const walk = (node: FieldNode | GraphQLResolveInfo['fragments'][string]) =>
    visit(node, {
      Variable: (variable) => void names.add(variable.name.value),
      FragmentSpread: (spread) => {
        const fragment = info.fragments[spread.name.value];
        if (fragment && !visited.has(spread.name.value)) {
          visited.add(spread.name.value);
          walk(fragment);
        }
      },
    });
  if (fieldNode.selectionSet) walk({ ...fieldNode, arguments: [], directives: [] });
  return [...names].sort();
}

/** A plan cache for one schema builder's `prisma.planCache`; its uses count as the `plan-cache` fast path. */
export function createPlanCache(): PrismaPlanCache {
  const byField = new WeakMap<FieldNode, FieldPlans>();

  const fieldPlansOf = (fieldNode: FieldNode, info: GraphQLResolveInfo): FieldPlans => {
    let entry = byField.get(fieldNode);
    if (!entry) byField.set(fieldNode, (entry = { variables: variablesBeneath(fieldNode, info), plans: new Map() }));
    return entry;
  };

  return {
    plan(options, walk) {
      const { info } = options;
      // A field selected more than once merges nodes chosen by the parent's directives: planned every time.
      if (info.fieldNodes.length !== 1) return walk(options);
      const entry = fieldPlansOf(info.fieldNodes[0]!, info);
      const key = JSON.stringify([
        info.parentType.name,
        options.typeName,
        options.path,
        options.paths,
        options.skipDeferredFragments,
        entry.variables.map((name) => info.variableValues[name]),
      ]);
      const kept = entry.plans.get(key);
      if (kept === 'not kept' || (kept && kept.initial !== options.initial)) return walk(options);
      if (kept) {
        fastPathUses['plan-cache']++;
        return kept.plan;
      }
      if (entry.plans.size >= maxPlansPerField) return walk(options);
      let walked: ReturnType<Walk>;
      try {
        walked = walk({ ...options, context: refusingContext });
      } catch {
        // The context was read, or the walk failed: plan it with the request's context, which answers either.
        entry.plans.set(key, 'not kept');
        return walk(options);
      }
      // Nothing to plan, or a plan waiting on a select function's promise: not kept.
      if (!walked || 'then' in walked) {
        entry.plans.set(key, 'not kept');
        return walk(options);
      }
      entry.plans.set(key, { plan: walked, initial: options.initial });
      return walked;
    },
  };
}
