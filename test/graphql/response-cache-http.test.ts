import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fastPaths } from '../../src/fast-paths.js';
import { GraphQLResponseCache } from '../../src/response-cache/graphql.js';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let key: string;

// Cached responses sent before Yoga take two fast paths: with either off (HALLOWGATE_FAST_PATHS)
// there are none, and test/graphql/fast-paths*.test.ts shows nothing is looked up.
const cachedBeforeYoga = fastPaths['response-cache'] && fastPaths['json-post'];

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  ({ key } = await server.createKey());
});

afterAll(async () => {
  await server?.close();
});

/** How many lookups before Yoga found a cached response, while `work` ran. */
async function answeredBeforeYoga(work: () => Promise<unknown>): Promise<number> {
  const lookup = vi.spyOn(GraphQLResponseCache.prototype, 'lookup');
  try {
    await work();
    const outcomes = await Promise.all(lookup.mock.results.map((result) => result.value as Promise<unknown>));
    return outcomes.filter((answer) => answer !== undefined).length;
  } finally {
    lookup.mockRestore();
  }
}

interface Sent {
  status: number;
  headers: Headers;
  body: string;
}

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** The headers that describe the answer itself (not the request id, the date or the rate limit's count). */
function answerHeaders(sent: Sent): Record<string, string> {
  const varying = new Set(['x-request-id', 'date', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'keep-alive', 'connection']);
  return Object.fromEntries([...sent.headers].filter(([name]) => !varying.has(name)));
}

const eventQuery = 'query OneEvent($first: Int) { events(first: $first) { edges { node { id title categories { slug } } } } }';

describe.skipIf(!cachedBeforeYoga)('cached GraphQL responses over HTTP', () => {
  it.each([
    ['no Accept', undefined],
    ['*/*', '*/*'],
    ['application/json', 'application/json'],
    ['application/graphql-response+json', 'application/graphql-response+json'],
    ['both, JSON first', 'application/json, application/graphql-response+json'],
    ['both, graphql-response first', 'application/graphql-response+json;charset=utf-8, application/json;q=0.9'],
    ['application/*', 'application/*'],
  ])('are sent before Yoga with the status, headers and bytes Yoga sent (%s)', async (_name, accept) => {
    const request = { query: eventQuery, operationName: 'OneEvent', variables: { first: accept?.length ?? 1 } };
    const headers: Record<string, string> = accept ? { accept } : {};
    // With `extensions`, the request is Yoga's from end to end (the HTTP layer takes JSON POSTs of query, operationName and variables only).
    const fromYoga = await post({ ...request, extensions: {} }, headers);
    expect(fromYoga.status).toBe(200);
    expect(JSON.parse(fromYoga.body).data.events.edges.length).toBeGreaterThan(0);
    // Cached the second time it is asked for, sent before Yoga from the third.
    expect(await answeredBeforeYoga(() => post(request, headers))).toBe(0);
    let cached!: Sent;
    expect(await answeredBeforeYoga(async () => (cached = await post(request, headers)))).toBe(1);
    expect(cached.status).toBe(fromYoga.status);
    expect(answerHeaders(cached)).toEqual(answerHeaders(fromYoga));
    expect(cached.body).toBe(fromYoga.body);
  });

  it('count in the metrics under their operation, like every other answer', async () => {
    const request = { query: eventQuery, operationName: 'OneEvent', variables: { first: 2 } };
    for (let sent = 0; sent < 2; sent++) await post(request);
    const count = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return Number(/^hallowgate_http_requests_total\{route="graphql:OneEvent",status_class="2xx"\} (\S+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await count();
    expect(await answeredBeforeYoga(() => post(request))).toBe(1);
    // Counted once the answer is handed to the socket, which may be just after the client has it.
    await expect.poll(count).toBe(before + 1);
  });

  it('leave to Yoga every request that is not a JSON POST answered in JSON', async () => {
    const request = { query: eventQuery, operationName: 'OneEvent', variables: { first: 3 } };
    for (let sent = 0; sent < 2; sent++) await post(request);
    expect(await answeredBeforeYoga(() => post(request))).toBe(1);

    await expect(
      answeredBeforeYoga(async () => {
        // Yoga answers a query asked as an event stream in that stream.
        const streamed = await post(request, { accept: 'text/event-stream' });
        expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
        expect(streamed.body).toContain('event: next');
        // Parameters Yoga does not know are Yoga's to refuse.
        const unknown = await post({ ...request, cursor: 'x' });
        expect(unknown.status).toBe(400);
        // No media type it answers in.
        expect((await post(request, { accept: 'text/plain' })).status).toBe(406);
        // JSON in another charset is refused before either reads it.
        expect((await post(request, { 'content-type': 'application/json; charset=latin1' })).status).toBe(415);
        // Variables of another shape than an object.
        expect((await post({ ...request, variables: [1] })).status).toBe(400);
      }),
    ).resolves.toBe(0);
  });

  it('are never given to a request Yoga would refuse: an empty operation name, NUL characters, overflowing numbers, another content type', async () => {
    const categories = '{ categories(first: 2) { edges { node { slug } } } }';
    const commented = `${categories}#`;
    const events = { query: eventQuery, operationName: 'OneEvent' };
    const cached = [{ query: categories }, { query: `${commented}\u0000\u0000${commented}` }, { ...events, variables: { first: null } }];
    for (const request of cached) for (let sent = 0; sent < 2; sent++) expect((await post(request)).status).toBe(200);
    expect(await answeredBeforeYoga(() => Promise.all(cached.map((request) => post(request))))).toBe(cached.length);

    const refused: [body: string | object, headers: Record<string, string>, status: number][] = [
      // Yoga looks for an operation named "" and finds none.
      [{ query: categories, operationName: '' }, {}, 400],
      // The same characters as the cached text and name run together, split elsewhere.
      [{ query: commented, operationName: `\u0000${commented}\u0000` }, {}, 400],
      // Infinity is not an Int, though JSON.stringify writes it as the cached null.
      [`{"query":${JSON.stringify(eventQuery)},"operationName":"OneEvent","variables":{"first":1e999}}`, {}, 400],
      [{ query: categories }, { 'content-type': 'text/plain' }, 415],
    ];
    for (const [body, headers, status] of refused) {
      let answer!: Sent;
      expect(await answeredBeforeYoga(async () => (answer = await post(body, headers)))).toBe(0);
      expect(answer.status).toBe(status);
    }
  });

  it('are cached for each operation of a document with several, each under its own data versions', async () => {
    const query = 'query Kinds { categories(first: 1) { edges { node { slug } } } } query Offered { services(first: 1) { edges { node { id } } } }';
    const operations = ['Kinds', 'Offered'].map((operationName) => ({ query, operationName }));
    for (const request of operations) for (let sent = 0; sent < 2; sent++) await post(request);
    const answers: Sent[] = [];
    expect(await answeredBeforeYoga(async () => answers.push(...(await Promise.all(operations.map((request) => post(request))))))).toBe(2);
    expect(JSON.parse(answers[0]!.body).data.categories).toBeDefined();
    expect(JSON.parse(answers[1]!.body).data.services).toBeDefined();
  });

  it('are never given to another caller or after the data changed', async () => {
    const request = { query: '{ categories(first: 2) { edges { node { slug name } } } }' };
    for (let sent = 0; sent < 2; sent++) await post(request);
    expect(await answeredBeforeYoga(() => post(request))).toBe(1);

    const other = await server.createKey({ scopes: ['directory:read'] });
    const otherAnswer = async () => {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      return response.json();
    };
    expect(await answeredBeforeYoga(otherAnswer)).toBe(0);

    const before = JSON.parse((await post(request)).body);
    const category = await server.prisma.category.findFirstOrThrow({ where: { slug: before.data.categories.edges[0].node.slug } });
    // Every write to a directory table moves the directory's data version (a trigger).
    await server.prisma.category.update({ where: { id: category.id }, data: { name: `${category.name} (renamed)` } });
    let after!: Sent;
    expect(await answeredBeforeYoga(async () => (after = await post(request)))).toBe(0);
    expect(JSON.parse(after.body).data.categories.edges[0].node.name).toBe(`${category.name} (renamed)`);
  });
});

describe.skipIf(!cachedBeforeYoga)('cached GraphQL responses that include availability', () => {
  // The server's clock, moved by the tests; it starts on a whole minute of the real time (services' seasons follow it).
  let now = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  let clocked: TestServer;
  let serviceId: string;
  let ownKey: string;
  let own: ApiCall;
  let another: ApiCall;
  const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };
  // Two days ahead at 19:00 UTC: a slot of the every-five-minutes service, booked by the account that asks.
  const booked = futureSlot(2, 19);
  const bookedDay = booked.slice(0, 10);
  const nextDay = new Date(Date.parse(`${bookedDay}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    clocked = await startTestServer({ seed: true, clock: () => now });
    serviceId = await openService(clocked.prisma, { capacity: 10 });
    ({ key: ownKey } = await clocked.createKey({ scopes: ['bookings:read', 'bookings:write'] }));
    own = apiClient(clocked.url, ownKey);
    another = apiClient(clocked.url, (await clocked.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
    expect((await own('POST', '/v1/bookings', { service_id: serviceId, start_time: booked, party_size: 1, customer })).status).toBe(201);
  });
  afterAll(() => clocked?.close());

  /** The account's bookings, each with its service's availability on `day`: what is cached under the account's bookings data version. */
  const nestedAvailability = (day: string) => ({
    query: `{ bookings(first: 10) { edges { node { id service { availability(startDate: "${day}", endDate: "${day}") { startTime remaining } } } } } }`,
  });

  async function slotsOf(request: { query: string }): Promise<{ startTime: string; remaining: number }[]> {
    const response = await fetch(`${clocked.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    const body = (await response.json()) as { data: { bookings: { edges: { node: { service: { availability: { startTime: string; remaining: number }[] } } }[] } } };
    return body.data.bookings.edges[0]!.node.service.availability;
  }

  it("follow every account's bookings of the service: another account's places show at once", async () => {
    const request = nestedAvailability(bookedDay);
    for (let sent = 0; sent < 2; sent++) await slotsOf(request);
    // Still cached while nothing changes.
    let slots: Awaited<ReturnType<typeof slotsOf>> = [];
    expect(await answeredBeforeYoga(async () => (slots = await slotsOf(request)))).toBe(1);
    expect(slots.find((slot) => slot.startTime === booked)?.remaining).toBe(9);

    const tagBefore = (await another('GET', `/v1/services/${serviceId}/availability?start_date=${bookedDay}&end_date=${bookedDay}`)).headers.get('etag')!;
    expect((await another('POST', '/v1/bookings', { service_id: serviceId, start_time: booked, party_size: 5, customer })).status).toBe(201);

    expect((await slotsOf(request)).find((slot) => slot.startTime === booked)?.remaining).toBe(4);
    // REST's validator moves with it: the old tag no longer matches.
    const rest = await another('GET', `/v1/services/${serviceId}/availability?start_date=${bookedDay}&end_date=${bookedDay}`, undefined, { 'if-none-match': tagBefore });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('etag')).not.toBe(tagBefore);
  });

  it('drop a slot once it has started, though no booking changed', async () => {
    const request = nestedAvailability(nextDay);
    const first = `${nextDay}T00:00:00Z`;
    const path = `/v1/services/${serviceId}/availability?start_date=${nextDay}&end_date=${nextDay}`;
    for (let sent = 0; sent < 2; sent++) expect((await slotsOf(request))[0]!.startTime).toBe(first);
    const tagBefore = (await own('GET', path)).headers.get('etag')!;

    now = new Date(Date.parse(first) + 60_000);
    expect((await slotsOf(request))[0]!.startTime).toBe(`${nextDay}T00:05:00Z`);
    const rest = await own('GET', path, undefined, { 'if-none-match': tagBefore });
    expect(rest.status).toBe(200);
    expect(rest.body.data[0].start_time).toBe(`${nextDay}T00:05:00Z`);
  });
});
