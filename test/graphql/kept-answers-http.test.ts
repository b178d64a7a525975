import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KeptGraphQLAnswers } from '../../src/graphql/kept-answers.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  ({ key } = await server.createKey());
});

afterAll(async () => {
  await server?.close();
});

/** How many lookups before Yoga found a kept answer, while `work` ran. */
async function answeredBeforeYoga(work: () => Promise<unknown>): Promise<number> {
  const lookup = vi.spyOn(KeptGraphQLAnswers.prototype, 'lookup');
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

describe('kept GraphQL answers over HTTP', () => {
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
    // With `extensions`, the request is Yoga's from end to end (the HTTP layer takes plain POSTs only).
    const fromYoga = await post({ ...request, extensions: {} }, headers);
    expect(fromYoga.status).toBe(200);
    expect(JSON.parse(fromYoga.body).data.events.edges.length).toBeGreaterThan(0);
    // Kept the second time it is asked for, sent before Yoga from the third.
    expect(await answeredBeforeYoga(() => post(request, headers))).toBe(0);
    let kept!: Sent;
    expect(await answeredBeforeYoga(async () => (kept = await post(request, headers)))).toBe(1);
    expect(kept.status).toBe(fromYoga.status);
    expect(answerHeaders(kept)).toEqual(answerHeaders(fromYoga));
    expect(kept.body).toBe(fromYoga.body);
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

  it('leave to Yoga every request that is not a plain JSON POST answered in JSON', async () => {
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
        // JSON in another charset is Yoga's to read.
        expect(JSON.parse((await post(request, { 'content-type': 'application/json; charset=latin1' })).body).data.events).toBeDefined();
        // Variables of another shape than an object.
        expect((await post({ ...request, variables: [1] })).status).toBe(400);
      }),
    ).resolves.toBe(0);
  });

  it('are never given to a request Yoga would refuse: an empty operation name, NUL characters, overflowing numbers, another content type', async () => {
    const categories = '{ categories(first: 2) { edges { node { slug } } } }';
    const commented = `${categories}#`;
    const events = { query: eventQuery, operationName: 'OneEvent' };
    const kept = [{ query: categories }, { query: `${commented}\u0000\u0000${commented}` }, { ...events, variables: { first: null } }];
    for (const request of kept) for (let sent = 0; sent < 2; sent++) expect((await post(request)).status).toBe(200);
    expect(await answeredBeforeYoga(() => Promise.all(kept.map((request) => post(request))))).toBe(kept.length);

    const refused: [body: string | object, headers: Record<string, string>, status: number][] = [
      // Yoga looks for an operation named "" and finds none.
      [{ query: categories, operationName: '' }, {}, 400],
      // The same characters as the kept text and name run together, split elsewhere.
      [{ query: commented, operationName: `\u0000${commented}\u0000` }, {}, 400],
      // Infinity is not an Int, though JSON.stringify writes it as the kept null.
      [`{"query":${JSON.stringify(eventQuery)},"operationName":"OneEvent","variables":{"first":1e999}}`, {}, 400],
      // Yoga's JSON parser takes application/json exactly as written.
      [{ query: categories }, { 'content-type': 'Application/JSON' }, 415],
      [{ query: categories }, { 'content-type': 'application/json ; charset=utf-8' }, 415],
    ];
    for (const [body, headers, status] of refused) {
      let answer!: Sent;
      expect(await answeredBeforeYoga(async () => (answer = await post(body, headers)))).toBe(0);
      expect(answer.status).toBe(status);
    }
  });

  it('are kept for each operation of a document with several, each under its own fingerprints', async () => {
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
    // Every write to a directory table moves the directory's fingerprint (a trigger).
    await server.prisma.category.update({ where: { id: category.id }, data: { name: `${category.name} (renamed)` } });
    let after!: Sent;
    expect(await answeredBeforeYoga(async () => (after = await post(request)))).toBe(0);
    expect(JSON.parse(after.body).data.categories.edges[0].node.name).toBe(`${category.name} (renamed)`);
  });
});
