import { Plan } from '@pothos/selection-mapper';
import { visit, type FieldNode, type GraphQLResolveInfo } from 'graphql';

/**
 * Keeps the query plans of the prisma plugin across requests. For every prismaField and
 * prismaConnection the plugin plans the query from the document on each request (Plan.fromInfo walks
 * the selection set and every select function in it): a tenth of the CPU of a one-record query. A plan
 * depends on the document, the values of the variables used beneath the field, and whatever select
 * functions read. So a plan is kept per field node and those variables' values, and only when its
 * walk did not touch the context: it is walked first with a context that refuses every use, and a
 * select function that reads the context leaves its field planned on every request, as before.
 * Each request plays a copy of the kept plan bound to its own context and info, which is where the
 * plugin records what the rows carry for the fields below.
 */

type FromInfo = (this: typeof Plan, adapter: unknown, options: PlanOptions) => unknown;

interface PlanOptions {
  context: object;
  info: GraphQLResolveInfo;
  typeName?: string;
  path?: unknown;
  paths?: unknown;
  initial?: unknown;
}

interface KeptPlan {
  context: object;
  info: GraphQLResolveInfo;
  initial: unknown;
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

interface FieldPlans {
  /** Variables used anywhere beneath the field, fragments included: what else its plans depend on. */
  variables: string[];
  plans: Map<string, KeptPlan | 'not kept'>;
}

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

const byField = new WeakMap<FieldNode, FieldPlans>();

function fieldPlansOf(fieldNode: FieldNode, info: GraphQLResolveInfo): FieldPlans {
  let entry = byField.get(fieldNode);
  if (!entry) byField.set(fieldNode, (entry = { variables: variablesBeneath(fieldNode, info), plans: new Map() }));
  return entry;
}

/** The kept plan as this request's own: its context and info, the rest shared (a plan is only read once walked). */
function boundTo(plan: KeptPlan, options: PlanOptions): unknown {
  return Object.assign(Object.create(Object.getPrototypeOf(plan) as object) as KeptPlan, plan, { context: options.context, info: options.info });
}

export function keepPrismaPlans(): void {
  const plan = Plan as unknown as { fromInfo: FromInfo };
  const fromInfo = plan.fromInfo;
  plan.fromInfo = function keptFromInfo(this: typeof Plan, adapter, options) {
    const { info } = options;
    // A field selected more than once merges nodes chosen by the parent's directives: planned every time.
    if (info.fieldNodes.length !== 1) return fromInfo.call(this, adapter, options);
    const entry = fieldPlansOf(info.fieldNodes[0]!, info);
    const key = JSON.stringify([info.parentType.name, options.typeName, options.path, options.paths, entry.variables.map((name) => info.variableValues[name])]);
    const kept = entry.plans.get(key);
    if (kept === 'not kept' || (kept && kept.initial !== options.initial)) return fromInfo.call(this, adapter, options);
    if (kept) return boundTo(kept, options);
    if (entry.plans.size >= maxPlansPerField) return fromInfo.call(this, adapter, options);
    let walked: unknown;
    try {
      walked = fromInfo.call(this, adapter, { ...options, context: refusingContext });
    } catch {
      // The context was read, or the walk failed: plan it with the request's context, which answers either.
      entry.plans.set(key, 'not kept');
      return fromInfo.call(this, adapter, options);
    }
    // Nothing to plan, or a plan waiting on a select function's promise: not kept.
    if (!walked || typeof (walked as PromiseLike<unknown>).then === 'function') {
      entry.plans.set(key, 'not kept');
      return fromInfo.call(this, adapter, options);
    }
    entry.plans.set(key, walked as KeptPlan);
    return boundTo(walked as KeptPlan, options);
  };
}
