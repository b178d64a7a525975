import { AppError } from '../shared/errors.js';

/** The paging plugin-prisma adds to a connection's query: Prisma's cursor, the cursor's record skipped. */
interface CursorPage {
  cursor?: { id?: string | undefined };
  skip?: number;
  take?: number;
}

/** A comparison on the order key: after the cursor's record going forwards, before it going backwards. */
type KeyCondition<Value> = { gt: Value } | { lt: Value };

/**
 * plugin-prisma pages with Prisma's cursor, which finds the cursor's record in the list and skips it:
 * once that record has left the list (withdrawn, deleted, filtered out since the page was sent), the
 * next page comes back empty, or without the record after it, and the client believes it has read
 * everything. Read instead as a keyset: the records whose order key is past the cursor record's,
 * which holds whether that record is still listed or not. `keyOf` reads the cursor record's key
 * (within what the caller may see); a cursor naming none is refused, never answered with an empty page.
 * The list must be ordered by that key alone, a unique column, ascending.
 */
export async function keysetPage<Query extends CursorPage, Value extends string | bigint>(
  query: Query,
  keyOf: (id: string) => Promise<Value | undefined>,
): Promise<{ page: Omit<Query, 'cursor' | 'skip'>; past: KeyCondition<Value> | undefined }> {
  const { cursor, skip: _skip, ...page } = query;
  if (cursor?.id === undefined) return { page, past: undefined };
  const key = await keyOf(cursor.id);
  if (key === undefined) throw cursorNamingNothing(query);
  return { page, past: (query.take ?? 0) < 0 ? { lt: key } : { gt: key } };
}

/**
 * keysetPage for a list ordered by its records' ids alone, within `listed` (one account's, say): the
 * arguments of its findMany. `idWithin` finds the cursor's record within the list.
 */
export async function pageById<Query extends CursorPage, Listed extends object>(
  query: Query,
  listed: Listed,
  idWithin: (where: Listed & { id: string }) => Promise<{ id: string } | null>,
): Promise<Omit<Query, 'cursor' | 'skip'> & { where: Listed & { id?: KeyCondition<string> }; orderBy: { id: 'asc' } }> {
  const { page, past } = await keysetPage(query, async (id) => (await idWithin({ ...listed, id }))?.id);
  return { ...page, where: { ...listed, ...(past ? { id: past } : {}) }, orderBy: { id: 'asc' } };
}

/**
 * For lists in an order of several keys, which still page by Prisma's cursor (continuing from its
 * record's values as they are now): a cursor whose record no longer exists, or never did, leaves
 * Prisma an empty page, which a client reads as the list's end. That page is refused instead.
 * `exists` is asked only when the page past a cursor came back empty.
 */
export async function refuseCursorNamingNothing<Row>(rows: Row[], query: CursorPage, exists: (id: string) => Promise<boolean>): Promise<Row[]> {
  const id = query.cursor?.id;
  if (rows.length > 0 || id === undefined || (await exists(id))) return rows;
  throw cursorNamingNothing(query);
}

function cursorNamingNothing(query: CursorPage): AppError {
  return new AppError('invalid_parameter', 'The cursor names a record that no longer exists; start again from the first page.', {
    fieldErrors: [{ field: (query.take ?? 0) < 0 ? 'before' : 'after', code: 'invalid', message: 'Use the cursor of a page of this list.' }],
  });
}
