/** A small JSON client for tests: sends a key, returns status, headers and parsed body. */
export function apiClient(baseUrl: string, key: string) {
  return async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
}

export type ApiCall = ReturnType<typeof apiClient>;

/** The cursor a list page answers for the record `id` (plugin-prisma's), as GraphQL takes it. */
export const cursorOfRecord = (id: string) => Buffer.from(`GPC:S:${id}`).toString('base64');

/** The same cursor as a REST `cursor` query value. */
export const cursorParamOf = (id: string) => encodeURIComponent(cursorOfRecord(id));

/** A booking's customer, as tests send it. */
export const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };

/** An ISO UTC timestamp `days` after the start of today, at `hour` o'clock. */
export function futureSlot(days: number, hour = 19): string {
  const date = new Date();
  date.setUTCHours(hour, 0, 0, 0);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().replace('.000Z', 'Z');
}
