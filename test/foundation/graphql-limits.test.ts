import { getIntrospectionQuery, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complexityLimits } from '../../src/graphql/builder.js';
import { documentLimits, maxAnswerBytes, useAnswerSizeLimit } from '../../src/graphql/limits.js';
import { markRestOperationDocument } from '../../src/graphql/rest-operation-documents.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  ({ key } = await server.createKey({ scopes: ['directory:read'] }));
});
afterAll(() => server?.close());

interface Answer {
  status: number;
  bytes: number;
  body: { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
  headers: Headers;
}

async function post(query: string, credential: string | null = key): Promise<Answer> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  return { status: response.status, bytes: Buffer.byteLength(text), body: JSON.parse(text), headers: response.headers };
}

function expectTooComplex(answer: Answer) {
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(400);
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors?.[0]?.extensions?.code).toBe('query_too_complex');
}

/** `count` aliases of `selection`, each named by its index. */
function aliased(count: number, selection: (index: number) => string): string {
  return `{ ${Array.from({ length: count }, (_, index) => selection(index)).join(' ')} }`;
}

const fullIntrospection = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true });

describe('GraphQL needs a credential', () => {
  it('answers 401 unauthenticated to POST, GET and SSE without one', async () => {
    const anonymousPost = await post('{ __typename }', null);
    expect(anonymousPost.status).toBe(401);
    expect(anonymousPost.body.errors?.[0]?.extensions?.code).toBe('unauthenticated');
    expect(anonymousPost.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const anonymousGet = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/json' } });
    expect(anonymousGet.status).toBe(401);
    expect((await anonymousGet.json()).errors[0].extensions.code).toBe('unauthenticated');

    const anonymousStream = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { bookingEvents { id } }' }),
    });
    expect(anonymousStream.status).toBe(401);
    expect(anonymousStream.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await anonymousStream.body?.cancel();
  });

  it('still serves the GraphiQL page without one', async () => {
    const page = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('GraphiQL');
  });
});

describe('document limits', () => {
  it('refuses 300 and 2,000 aliased introspections before running them, quickly and without growing memory', async () => {
    const rssBefore = process.memoryUsage().rss;
    for (const count of [300, 2000]) {
      const answer = await post(aliased(count, (index) => `a${index}: __schema { types { fields { args { name description type { name } } } } }`));
      expectTooComplex(answer);
      expect(answer.bytes).toBeLessThan(10_000);
    }
    // Run, the 300 grew the process by 1.2 GB and the 2,000 by 2 GB. Refused, they cost parsing and
    // validation only; the bound leaves room for how each Node version sizes V8's heap (CI saw 117 MB on Node 24).
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(400_000_000);
  });

  it(`refuses more than ${documentLimits.aliases} aliases of any field, and counts introspection toward the cost`, async () => {
    const page = (index: number) => `t${index}: categories(first: 1) { edges { node { slug } } }`;
    expect((await post(aliased(documentLimits.aliases, page))).body.errors).toBeUndefined();
    const over = await post(aliased(documentLimits.aliases + 1, page));
    expectTooComplex(over);
    expect(over.body.errors![0]!.message).toMatch(/alias/i);

    // Fewer aliases than allowed, but introspection nesting lists enough to cost more than the limit.
    const costly = await post(aliased(20, (index) => `i${index}: __schema { types { fields { args { name description defaultValue type { name kind } } } } }`));
    expectTooComplex(costly);
    expect(costly.body.errors![0]!.message).toContain(`limit of ${complexityLimits.complexity}`);
  });

  it('counts aliases of __typename like any other', async () => {
    expectTooComplex(await post(aliased(documentLimits.aliases + 1, (index) => `t${index}: __typename`)));
  });

  it('weighs fragments that spread fragments in linear time: 26 doubling levels are refused, not worked through', { timeout: 20_000 }, async () => {
    // Each level spreads the one below twice: walked naively, 2^26 visits, and the server stalls for everyone.
    const levels = Array.from({ length: 26 }, (_, level) => `fragment F${level + 1} on Query { ...F${level} ...F${level} }`);
    const bomb = `query { ...F26 } fragment F0 on Query { __typename } ${levels.join(' ')}`;
    expectTooComplex(await post(bomb));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers a 5,000-deep selection, a deeply nested argument and a million-token document with 400, not a stack overflow', async () => {
    expectTooComplex(await post(`{ ${'a { '.repeat(5000)}b${' }'.repeat(5000)} }`));
    expectTooComplex(await post(`{ events(city: ${'['.repeat(5000)}${']'.repeat(5000)}) { totalCount } }`));
    // Punctuators are one byte each: nearly a million tokens in a body under MAX_BODY_BYTES.
    const manyTokens = await post(`{ __typename${'!'.repeat(990_000)} }`);
    expectTooComplex(manyTokens);
    expect(manyTokens.body.errors![0]!.message).toContain(`${documentLimits.tokens}`);
    const tooDeep = await post(`{ events(first: 1) { edges { node { ${'attraction { events(first: 1) { edges { node { '.repeat(4)}id${' } } } }'.repeat(4)} } } } }`);
    expectTooComplex(tooDeep);
    expect(tooDeep.body.errors![0]!.message).toMatch(/depth/i);
  });

  it('weighs a document by its variables once its largest pages could pass the limit, however often it ran within it', async () => {
    const nested =
      'query ($n: Int, $m: Int) { attractions(first: $n) { edges { node { events(first: $m) { edges { node { id title startsAt endsAt categories { slug } } } } } } } }';
    const send = async (variables: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: nested, variables }),
      });
      return { status: response.status, body: (await response.json()) as Answer['body'] };
    };
    // Bad variables first: refused before anything is weighed, they leave no verdict on the document.
    expect((await send({ n: 'many' })).status).toBe(400);
    for (const small of [1, 2, 1]) {
      const answer = await send({ n: small, m: small });
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
    }
    const large = await send({ n: 100, m: 100 });
    expect(large.status).toBe(400);
    expect(large.body.errors?.[0]?.extensions?.code).toBe('query_too_complex');
    expect((await send({ n: 1, m: 1 })).status).toBe(200);
  });

  it(`keeps the largest answers the limits let through far under ${maxAnswerBytes} bytes`, async () => {
    // The standard introspection query (as GraphiQL sends it) passes; two of it do not.
    const introspection = await post(fullIntrospection);
    expect(introspection.status).toBe(200);
    expect(introspection.body.errors).toBeUndefined();
    const twice = fullIntrospection.replace('__schema {', 'first: __schema {').replace(/\}\s*fragment FullType/, ' second: __schema { types { ...FullType } } } fragment FullType');
    expectTooComplex(await post(twice));

    // For each kind of wide selection, as many aliases of it as the limits let through.
    const eventFields =
      'id title description startsAt endsAt updatedAt priceMin priceMax currency address city region venue timezone url latitude longitude attraction { name description } categories { slug name } images { url alt }';
    const selections = [
      (index: number) => `a${index}: __schema { types { name description fields { name description args { name description defaultValue } } } }`,
      (index: number) => `p${index}: events(first: 100) { edges { node { ${eventFields} } } }`,
      (index: number) => `n${index}: attractions(first: 100) { edges { node { name description events(first: 100) { edges { node { id title startsAt } } } } } }`,
    ];
    for (const selection of selections) {
      let answer: Answer | undefined;
      for (let count = documentLimits.aliases; count > 0; count--) {
        answer = await post(aliased(count, selection));
        if (answer.status === 200) break;
        expectTooComplex(answer);
      }
      expect(answer!.status).toBe(200);
      expect(answer!.body.errors).toBeUndefined();
      expect(answer!.bytes).toBeLessThan(maxAnswerBytes / 5);
    }
  });

  it(`refuses, as a last safety net, to send an answer over ${maxAnswerBytes} bytes`, () => {
    // No request within the limits reaches the net (above), so its hook is driven directly.
    const onExecute = useAnswerSizeLimit().onExecute as (payload: unknown) => { onExecuteDone(payload: unknown): void };
    const replaced: unknown[] = [];
    const finish = (result: unknown, document = parse('{ __typename }')) =>
      onExecute({ args: { document } }).onExecuteDone({ result, setResult: (next: unknown) => replaced.push(next) });
    const within = { data: { text: 'x'.repeat(maxAnswerBytes - 100) } };
    finish(within);
    // Let through as it was, with the text measured, which is what Yoga sends: serialised once.
    expect(replaced).toHaveLength(1);
    expect((replaced[0] as typeof within).data).toBe(within.data);
    expect((replaced[0] as { stringify(): string }).stringify()).toBe(JSON.stringify(within));
    replaced.length = 0;
    finish({ data: { text: 'x'.repeat(maxAnswerBytes) } });
    expect(replaced).toHaveLength(1);
    expect((replaced[0] as { data?: unknown; errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('query_too_complex');
    expect(replaced[0]).not.toHaveProperty('data');
    // The REST table's documents are passed by: REST serialises its own representation of their results.
    replaced.length = 0;
    const restDocument = parse('{ __typename }');
    markRestOperationDocument(restDocument);
    finish({ data: { text: 'x' } }, restDocument);
    expect(replaced).toHaveLength(0);
  });
});
