/**
 * The fast paths: second ways of doing what the plain Pothos + Yoga + Prisma app does, each for speed
 * (README, GraphQL; BENCHMARKS.md says what each buys). HALLOWGATE_FAST_PATHS chooses them once,
 * when this module loads: two of them are options of the schema builder, and the schema is built
 * when its module loads, so the choice cannot wait for the configuration a server is started with.
 * The rest read it once when the app is wired, never per request.
 */
export const fastPathNames = [
  /** The prisma plugin's query plans kept across requests: its `planCache` option (src/graphql/plan-cache.ts, patches/). */
  'plan-cache',
  /** Node ids answered as values rather than a promise each: the relay plugin's `synchronousGlobalIDs` option (patches/). */
  'node-ids',
  /** Root fields read by one SQL statement through the driver, not Prisma's client (src/db/sql-reads/). */
  'direct-reads',
  /** Queries and mutations run as code graphql-jit compiled, not by graphql-js (src/graphql/compiled-execution.ts). */
  'compiled-execution',
  /** A JSON POST executed through Yoga's envelop without its Fetch pipeline (src/server/json-post.ts). */
  'json-post',
  /** GraphQL and REST responses cached under data versions and sent again without executing (src/response-cache/). */
  'response-cache',
] as const;

export type FastPath = (typeof fastPathNames)[number];

export type FastPaths = Readonly<Record<FastPath, boolean>>;

const allOn: FastPaths = Object.freeze(Object.fromEntries(fastPathNames.map((name) => [name, true])) as Record<FastPath, boolean>);

export const fastPathsRule = `on (the default), off, or a comma list read left to right from on: on, off, +<path>, -<path> (paths: ${fastPathNames.join(', ')})`;

/** The fast paths a value of HALLOWGATE_FAST_PATHS turns on (`off,+response-cache`, `-direct-reads`); an error message when it is malformed. */
export function parseFastPaths(text: string | undefined): FastPaths | { error: string } {
  const chosen: Record<FastPath, boolean> = { ...allOn };
  for (const token of (text ?? '').split(',').map((part) => part.trim().toLowerCase())) {
    if (token === '' || token === 'on' || token === 'off') {
      if (token !== '') for (const name of fastPathNames) chosen[name] = token === 'on';
      continue;
    }
    const name = token.slice(1) as FastPath;
    if (!['+', '-'].includes(token[0]!) || !fastPathNames.includes(name)) return { error: `must be ${fastPathsRule}; "${token}" is none of these` };
    chosen[name] = token[0] === '+';
  }
  return Object.freeze(chosen);
}

const fromEnvironment = parseFastPaths(process.env['HALLOWGATE_FAST_PATHS']);

/**
 * The fast paths this process runs. A malformed value is refused by loadConfig (src/config.ts) with
 * every other bad setting, before the server starts; until then every path counts as on.
 */
export const fastPaths: FastPaths = 'error' in fromEnvironment ? allOn : fromEnvironment;

/** Node ids are not counted: the schema's own id resolvers show it (a value at once, not a promise). */
type CountedFastPath = Exclude<FastPath, 'node-ids'>;

/**
 * How many times each fast path did its work in place of the plain path since the process started,
 * so tests can tell that a path is still in use, not only that answers are right.
 */
export const fastPathUses: Record<CountedFastPath, number> = { 'plan-cache': 0, 'direct-reads': 0, 'compiled-execution': 0, 'json-post': 0, 'response-cache': 0 };
