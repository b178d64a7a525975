import { LRUCache } from 'lru-cache';
import { fastPathUses } from '../fast-paths.js';

/**
 * The response cache: GraphQL and REST responses stored once computed and sent again to an equal
 * request without running its operation (the 'response-cache' fast path, src/fast-paths.ts; off,
 * none is created and every request runs). This comment is its protocol.
 *
 * Key. An entry's key is the request key followed by the values of the data versions the response
 * depends on. The request key (request-keys.ts) hashes the session and the request as sent: a
 * GraphQL request's query text, operation name and variables; a REST GET's origin, path and query
 * string. The two describe requests differently, so a surface only ever finds its own entries.
 *
 * Validation. A data version is a validator, as an ETag is one: a cheap read (one indexed lookup)
 * whose value changes whenever a response depending on it could change. Fields declare theirs
 * (cachedUnderDataVersion, graphql-data-versions.ts); a GraphQL operation, or the operation of a
 * REST route, depends on those of every field it selects, and can be cached only when each of its
 * root fields declares one. A root field's argument may declare one too: the operation depends on it
 * when the argument is given (for a variable, when the request sets it). Data versions are read
 * before the operation runs, each once per request
 * (whichever of the HTTP layer, REST and Yoga asks first reads it, `dataVersionReads`), so an entry is
 * never stored under a newer value than its data.
 *
 * Sharing. Responses differ by caller only through what the caller may see: requests of the same
 * session (credential, account and scopes, sessionOf) share entries, and no others do.
 *
 * Admission. A request is cached from its second time on: a one-hit wonder (a new page, a new filter)
 * costs neither the data version read nor room. Only error-free responses are stored: a GraphQL
 * result without errors, a REST GET answered 200.
 *
 * Dropping. Nothing is invalidated: a write moves a data version, hence the key, and the entries
 * under the old value are never found again. Entries go least recently used first, within a budget
 * of characters of JSON; an entry over 1/64 of the budget is never stored. The record of requests
 * seen once is forgotten all at once when it holds `maxRequestsSeenOnce`.
 *
 * Entry points, each through `lookup` (or `peek`) and `store` here: the Yoga plugin for every
 * operation Yoga runs and the HTTP layer's lookup before Yoga for a JSON POST (graphql.ts), and the
 * REST router for GETs (src/rest/router.ts).
 */

/** A data version: read for a request, a value that changes whenever a response depending on it could change. */
export type DataVersion<Context> = (context: Context) => Promise<string>;

/**
 * A data version a response depends on only when a variable of its request is set: a filter given
 * by a variable (availableFor), whose answers move with data the unfiltered ones do not read.
 */
export interface DataVersionWhenSet<Context> {
  dataVersion: DataVersion<Context>;
  variable: string;
}

/** What a response depends on: a data version, always or when a variable is set. */
export type DataVersionDependency<Context> = DataVersion<Context> | DataVersionWhenSet<Context>;

/** A request's variables, for the dependencies that hang on one. */
export type RequestVariables = Readonly<Record<string, unknown>> | null | undefined;

/** The data versions read for one request, each read once whoever asks first. */
export type DataVersionReads = Map<DataVersion<never>, Promise<string>>;

/** What the cache needs of a request's context. */
export interface DataVersionReader {
  dataVersionReads: DataVersionReads;
}

export type Surface = 'graphql' | 'rest';

export type LookupOutcome = 'hit' | 'miss';

/** A cached request: its entry when one was found, and the key to store its response under. */
export interface CacheSlot<Entry> {
  key: string;
  entry: Entry | undefined;
}

/** Requests seen once, remembered by key; forgotten all at once when this many. */
const maxRequestsSeenOnce = 50_000;

/** The values of `dataVersions` for the request, each read once per request; one whose variable is not set reads nothing. */
function readDataVersions<Context extends DataVersionReader>(
  context: Context,
  dataVersions: readonly DataVersionDependency<Context>[],
  variables: RequestVariables,
): Promise<(string | null)[]> {
  const reads = context.dataVersionReads;
  return Promise.all(
    dataVersions.map((dependency) => {
      if (typeof dependency !== 'function' && variables?.[dependency.variable] == null) return null;
      const dataVersion = typeof dependency === 'function' ? dependency : dependency.dataVersion;
      let value = reads.get(dataVersion);
      if (!value) reads.set(dataVersion, (value = dataVersion(context)));
      return value;
    }),
  );
}

export class ResponseCache {
  private readonly entries: LRUCache<string, object>;
  private readonly seenOnce = new Set<string>();

  constructor(
    /** Characters of JSON the entries may take. */
    budget: number,
    /** Told of each lookup, with the data versions read for it (none for a request seen the first time). */
    private readonly onLookup: (surface: Surface, outcome: LookupOutcome, dataVersions: readonly (string | null)[]) => void,
  ) {
    // One large entry must not push out everything else.
    this.entries = new LRUCache<string, object>({ maxSize: budget, maxEntrySize: Math.max(1, Math.floor(budget / 64)) });
  }

  /**
   * Looks a request up and records that it was asked for: undefined the first time (nothing is
   * stored for it, and its data versions are not read), else its slot. Counts a hit or a miss.
   */
  async lookup<Context extends DataVersionReader, Entry extends object>(
    surface: Surface,
    context: Context,
    dataVersions: readonly DataVersionDependency<Context>[],
    requestKey: string,
    variables?: RequestVariables,
  ): Promise<CacheSlot<Entry> | undefined> {
    if (!this.admits(requestKey)) {
      this.onLookup(surface, 'miss', []);
      return undefined;
    }
    const { key, values } = await this.keyOf(context, dataVersions, requestKey, variables);
    const entry = this.entries.get(key) as Entry | undefined;
    this.counted(surface, entry, values);
    return { key, entry };
  }

  /**
   * The entry of a request asked for before, without recording this asking or counting a miss: for
   * a look before the entry point that looks it up for good when this finds nothing.
   */
  async peek<Context extends DataVersionReader, Entry extends object>(
    surface: Surface,
    context: Context,
    dataVersions: readonly DataVersionDependency<Context>[],
    requestKey: string,
    variables?: RequestVariables,
  ): Promise<Entry | undefined> {
    if (!this.seenOnce.has(requestKey)) return undefined;
    const { key, values } = await this.keyOf(context, dataVersions, requestKey, variables);
    const entry = this.entries.get(key) as Entry | undefined;
    if (entry) this.counted(surface, entry, values);
    return entry;
  }

  /** `size` is the response's length in characters, as the budget counts them (callers have it at hand). */
  store(key: string, entry: object, size: number): void {
    // lru-cache counts sizes from 1.
    this.entries.set(key, entry, { size: Math.max(1, size) });
  }

  /** Whether the request was seen before; records it when not. */
  private admits(requestKey: string): boolean {
    if (this.seenOnce.has(requestKey)) return true;
    if (this.seenOnce.size >= maxRequestsSeenOnce) this.seenOnce.clear();
    this.seenOnce.add(requestKey);
    return false;
  }

  private async keyOf<Context extends DataVersionReader>(
    context: Context,
    dataVersions: readonly DataVersionDependency<Context>[],
    requestKey: string,
    variables?: RequestVariables,
  ): Promise<{ key: string; values: (string | null)[] }> {
    const values = await readDataVersions(context, dataVersions, variables);
    return { key: `${requestKey}${JSON.stringify(values)}`, values };
  }

  private counted(surface: Surface, entry: object | undefined, dataVersions: readonly (string | null)[]): void {
    this.onLookup(surface, entry ? 'hit' : 'miss', dataVersions);
    if (entry) fastPathUses['response-cache']++;
  }
}
