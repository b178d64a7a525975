import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastPaths } from '../../src/fast-paths.js';
import { apiClient, cursorOfRecord, cursorParamOf, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let call: ApiCall;
let statements: string[] = [];
let city: string;
/** The server's "now": the real time unless a test moves it. */
let frozenNow: Date | null = null;

beforeAll(async () => {
  server = await startTestServer({ seed: true, onQuery: (sql) => statements.push(sql), clock: () => frozenNow ?? new Date() });
  call = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
  city = (await server.prisma.event.findFirstOrThrow({ where: { city: 'Chicago' } })).city;
});
afterAll(() => server?.close());

/** The API's timestamp form: ISO UTC without milliseconds. */
const isoSeconds = (date: Date) => date.toISOString().replace('.000Z', 'Z');

/** The directory's tables; the server's own background work (usage flushes, key refreshes) uses others. */
const directoryTable = /"(events|attractions|categories|images|_CategoryToEvent|_AttractionToCategory)"|\b(events|directory_version)\b/;

/** SQL statements on directory tables while `work` runs. */
/**
 * Statements of a request asked for the second time: the data version, then the operation, whose
 * answer is kept; without the response cache (HALLOWGATE_FAST_PATHS), the operation alone, every time.
 */
const secondAsking = fastPaths['response-cache'] ? 2 : 1;

async function countStatements(work: () => Promise<unknown>): Promise<number> {
  statements = [];
  await work();
  return statements.filter((sql) => directoryTable.test(sql)).length;
}

describe('GET /api/v1/events', () => {
  it('filters by city case-insensitively and pages with limit, cursor and Link', async () => {
    const total = await server.prisma.event.count({ where: { city } });
    const page = await call('GET', `/api/v1/events?city=${city.toUpperCase()}&limit=5`);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(5);
    expect(page.body.data.every((event: { city: string }) => event.city === city)).toBe(true);
    expect(page.body.has_more).toBe(total > 5);
    expect(page.headers.get('link')).toMatch(/rel="next"/);
    const seen = new Set<string>();
    let cursor: string | null = null;
    do {
      const next: { body: { data: { id: string }[]; next_cursor: string | null } } = await call(
        'GET',
        `/api/v1/events?city=${city}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const event of next.body.data) seen.add(event.id);
      cursor = next.body.next_cursor;
    } while (cursor);
    expect(seen.size).toBe(total);
  });

  it('returns the documented fields, and includes categories and images only when asked', async () => {
    const plain = await call('GET', `/api/v1/events?city=${city}&limit=1`);
    expect(Object.keys(plain.body.data[0]).sort()).toEqual(
      [
        'id',
        'title',
        'description',
        'city',
        'region',
        'venue',
        'address',
        'latitude',
        'longitude',
        'starts_at',
        'ends_at',
        'timezone',
        'price_min',
        'price_max',
        'currency',
        'url',
        'attraction_id',
        'updated_at',
        // Null outside a search near a point or for a party.
        'distance_km',
        'next_slots',
      ].sort(),
    );
    expect(typeof plain.body.data[0].price_min).toBe('number');
    const included = await call('GET', `/api/v1/events?city=${city}&limit=3&include=categories,images`);
    for (const event of included.body.data) {
      expect(event.categories.length).toBeGreaterThan(0);
      expect(event.categories[0]).toEqual({ id: expect.stringMatching(/^cat_/), slug: expect.any(String), name: expect.any(String) });
      expect(event.images[0]).toEqual({
        id: expect.stringMatching(/^img_/),
        url: expect.any(String),
        width: expect.any(Number),
        height: expect.any(Number),
        alt: expect.any(String),
      });
    }
  });

  it('projects fields, always keeping id', async () => {
    const response = await call('GET', `/api/v1/events?city=${city}&limit=2&fields=title,starts_at&include=images`);
    for (const event of response.body.data) expect(Object.keys(event).sort()).toEqual(['id', 'images', 'starts_at', 'title']);
  });

  it('filters by category, dates and text, and sorts', async () => {
    const haunted = await call('GET', '/api/v1/events?category=haunted-house&include=categories&limit=20');
    for (const event of haunted.body.data) expect(event.categories.map((category: { slug: string }) => category.slug)).toContain('haunted-house');
    const dated = await call('GET', '/api/v1/events?starts_after=2027-10-01&starts_before=2027-10-08T00:00:00Z&limit=100');
    expect(dated.body.data.length).toBeGreaterThan(0);
    for (const event of dated.body.data) expect(event.starts_at >= '2027-10-01' && event.starts_at < '2027-10-08').toBe(true);
    const sorted = await call('GET', `/api/v1/events?city=${city}&sort=-price_min,title&limit=50`);
    const prices = sorted.body.data.map((event: { price_min: number }) => event.price_min);
    expect(prices).toEqual([...prices].sort((a, b) => b - a));
    const searched = await call('GET', '/api/v1/events?q=manor&limit=10');
    expect(searched.body.data.length).toBeGreaterThan(0);
    for (const event of searched.body.data) expect(`${event.title} ${event.description} ${event.venue}`.toLowerCase()).toContain('manor');
    // LIKE wildcards in q are literal characters, not patterns.
    for (const wildcard of ['%', '_', '\\']) expect((await call('GET', `/api/v1/events?q=${encodeURIComponent(wildcard)}`)).body.data).toEqual([]);
  });

  it.each([
    ['include=venues', 'include'],
    ['fields=title,nope', 'fields'],
    ['sort=popularity', 'sort'],
    ['sort=-', 'sort'],
    ['sort=title,-title', 'sort'],
    ['limit=0', 'limit'],
    ['limit=500', 'limit'],
    ['starts_after=yesterday', 'starts_after'],
    ['cursor=garbage', 'cursor'],
  ])('rejects %s with 400 naming the parameter', async (query, parameter) => {
    const response = await call('GET', `/api/v1/events?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_parameter');
    expect(JSON.stringify(response.body)).toContain(parameter);
  });

  it('refuses a cursor naming no record with 400 on cursor, and answers past the last record with an empty last page', async () => {
    const noEvent = cursorParamOf('ev_0000000000doesnotexist');
    const noAttraction = cursorParamOf('at_0000000000doesnotexist');
    for (const path of [
      `/api/v1/events?cursor=${noEvent}`,
      `/api/v1/events?sort=-price_min,title&cursor=${noEvent}`,
      `/api/v1/events?lat=41.88&lng=-87.63&radius=50&cursor=${noEvent}`,
      `/api/v1/attractions?cursor=${noAttraction}`,
      `/api/v1/attractions?lat=41.88&lng=-87.63&radius=50&sort=distance&cursor=${noAttraction}`,
      // An event's cursor names no attraction.
      `/api/v1/attractions?cursor=${cursorParamOf((await server.prisma.event.findFirstOrThrow()).id)}`,
      `/api/v1/categories?cursor=${cursorParamOf('cat_doesnotexist')}`,
    ]) {
      const refused = await call('GET', path);
      expect([path, refused.status, refused.body.code, refused.body.errors?.[0]?.field]).toEqual([path, 400, 'invalid_parameter', 'cursor']);
    }
    const graphql = await call('POST', '/graphql', {
      query: 'query($after: String) { events(first: 2, after: $after) { edges { node { id } } } }',
      variables: { after: cursorOfRecord('ev_0000000000doesnotexist') },
    });
    expect(graphql.body.errors[0].extensions.code).toBe('invalid_parameter');

    const listed = await call('GET', `/api/v1/events?city=${city}&limit=100`);
    expect(listed.body.has_more).toBe(false);
    const end = await call('GET', `/api/v1/events?city=${city}&cursor=${cursorParamOf(listed.body.data.at(-1).id)}`);
    expect([end.status, end.body.data, end.body.has_more]).toEqual([200, [], false]);
  });

  it('says a limit under 1 is out of its range, as it says of one over 100', async () => {
    for (const limit of ['-1', '0', '101']) {
      const { status, body } = await call('GET', `/api/v1/events?limit=${limit}`);
      expect([limit, status, body.errors?.[0]?.field, body.errors?.[0]?.message]).toEqual([limit, 400, 'limit', 'limit must be from 1 to 100.']);
    }
  });

  it('counts a name repeated in fields or include once', async () => {
    const projected = await call('GET', '/api/v1/events?fields=title,title&include=images,images&limit=1');
    expect(projected.status).toBe(200);
    expect(Object.keys(projected.body.data[0]).sort()).toEqual(['id', 'images', 'title']);
  });

  it('refuses a sort order naming a field twice, however long, at once: a cursor over hundreds of sort keys held the database for minutes', async () => {
    const fields = ['TITLE', 'CITY', 'STARTS_AT', 'ENDS_AT', 'PRICE_MIN', 'PRICE_MAX', 'UPDATED_AT'];
    const order = Array.from({ length: 200 }, (_, index) => ({ field: fields[index % fields.length]!, direction: index % 2 ? 'DESC' : 'ASC' }));
    const first = await call('GET', '/api/v1/events?limit=1');
    const query = `query($order: [EventOrder!], $after: String) { events(orderBy: $order, first: 5, after: $after) { edges { node { id } } } }`;
    const answer = await call('POST', '/graphql', { query, variables: { order, after: first.body.next_cursor } });
    expect(answer.body.errors?.[0]).toMatchObject({ path: ['events'], extensions: { code: 'invalid_parameter' } });
    const rest = await call(
      'GET',
      `/api/v1/events?sort=${order.map((key) => `${key.direction === 'DESC' ? '-' : ''}${key.field.toLowerCase()}`).join(',')}&cursor=${first.body.next_cursor}`,
    );
    expect({ status: rest.status, code: rest.body.code }).toEqual({ status: 400, code: 'invalid_parameter' });
    // Every field once, in any direction, still sorts.
    const everyField = fields.map((field, index) => ({ field, direction: index % 2 ? 'DESC' : 'ASC' }));
    expect((await call('POST', '/graphql', { query, variables: { order: everyField, after: first.body.next_cursor } })).body.data.events.edges).toHaveLength(5);
  }, 60_000);

  it('resolves a page of 1, 20 or 100 events with categories and images in one statement, after the data version where the answer may be kept', async () => {
    const query = `query($first: Int) { events(first: $first) { edges { node { id title categories { slug } images { url } } } } }`;
    const firstTime = { graphql: [] as number[], rest: [] as number[] };
    const secondTime = { graphql: [] as number[], rest: [] as number[] };
    for (const limit of [1, 20, 100]) {
      // Both surfaces keep an answer the second time it is asked: only then is the data version read.
      for (const counts of [firstTime, secondTime]) {
        counts.graphql.push(await countStatements(() => call('POST', '/graphql', { query, variables: { first: limit } })));
        counts.rest.push(await countStatements(() => call('GET', `/api/v1/events?limit=${limit}&include=categories,images`)));
      }
    }
    expect(firstTime).toEqual({ graphql: [1, 1, 1], rest: [1, 1, 1] });
    expect(secondTime).toEqual({ graphql: Array(3).fill(secondAsking), rest: Array(3).fill(secondAsking) });
  });

  it('resolves a page of attractions with events, categories and next_starts_at in statements that do not grow with the page', async () => {
    const counts: number[] = [];
    for (const limit of [1, 20, 100]) {
      counts.push(await countStatements(() => call('GET', `/api/v1/attractions?limit=${limit}&include=events,categories`)));
    }
    // The page with its events and categories, and one timeline statement (asked for the first time, no data version).
    expect(counts).toEqual([2, 2, 2]);
  });

  it('reads the timeline behind nextStartsAt and updatedAt in one statement per page, shared by both fields', async () => {
    const query = `query($first: Int) { attractions(first: $first) { edges { node { id nextStartsAt updatedAt } } } }`;
    const counts: number[] = [];
    for (const first of [1, 20, 100]) {
      counts.push(await countStatements(() => call('POST', '/graphql', { query, variables: { first } })));
    }
    // The page of attractions and one timeline statement for both fields (asked for the first time, no data version).
    expect(counts).toEqual([2, 2, 2]);
  });
});

describe('single records, attractions and categories', () => {
  it('gets one event, 404 for an unknown one', async () => {
    const [first] = (await call('GET', `/api/v1/events?city=${city}&limit=1`)).body.data;
    const one = await call('GET', `/api/v1/events/${first.id}?include=images`);
    expect(one.body).toMatchObject({ id: first.id, title: first.title });
    expect(one.body.images.length).toBeGreaterThan(0);
    expect((await call('GET', '/api/v1/events/ev_nothere')).status).toBe(404);
  });

  it('lists attractions with aggregates and includes their events and categories', async () => {
    const response = await call('GET', `/api/v1/attractions?city=${city.toLowerCase()}&include=events,categories&limit=3`);
    expect(response.status).toBe(200);
    for (const attraction of response.body.data) {
      expect(attraction.event_count).toBe(attraction.events.length);
      const starts = attraction.events.map((event: { starts_at: string }) => event.starts_at).sort();
      expect(attraction.first_starts_at).toBe(starts[0]);
      expect(attraction.categories.length).toBeGreaterThan(0);
      const upcoming = starts.filter((start: string) => start > new Date().toISOString());
      expect(attraction.next_starts_at).toBe(upcoming[0] ?? null);
    }
    const byCount = await call('GET', '/api/v1/attractions?sort=-event_count,name&limit=100');
    const counts = byCount.body.data.map((attraction: { event_count: number }) => attraction.event_count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect((await call('GET', '/api/v1/attractions?sort=updated_at')).status).toBe(400);
    const one = await call('GET', `/api/v1/attractions/${response.body.data[0].id}`);
    expect(one.body.name).toBe(response.body.data[0].name);
    expect(one.body.events).toBeUndefined();
  });

  it('lists categories and finds one by id or slug', async () => {
    const list = await call('GET', '/api/v1/categories?limit=100');
    expect(list.body.data.map((category: { slug: string }) => category.slug)).toEqual([
      'corn-maze',
      'escape-room',
      'festival',
      'ghost-tour',
      'haunted-house',
      'hayride',
      'pumpkin-patch',
      'trick-or-treat',
    ]);
    // A list has no date (records leave it without one moving forward); a record has one.
    expect(list.headers.get('last-modified')).toBeNull();
    const bySlug = await call('GET', '/api/v1/categories/haunted-house');
    expect(Object.keys(bySlug.body).sort()).toEqual(['id', 'name', 'slug']);
    expect((await call('GET', `/api/v1/categories/${bySlug.body.id}`)).body).toEqual(bySlug.body);
    expect((await call('GET', '/api/v1/categories/ghosts-only')).status).toBe(404);
  });

  it('needs directory:read, on REST and on every way into the GraphQL types', async () => {
    const bookingsOnly = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read'] })).key);
    const response = await bookingsOnly('GET', '/api/v1/events');
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('insufficient_scope');
    const [event] = (await call('GET', `/api/v1/events?city=${city}&limit=1&include=categories,images`)).body.data;
    for (const id of [event.id, event.attraction_id, event.categories[0].id, event.images[0].id]) {
      const graphql = await bookingsOnly('POST', '/graphql', { query: `{ node(id: "${id}") { id } }` });
      expect(graphql.body.data?.node ?? null).toBeNull();
      expect(graphql.body.errors[0].extensions.code).toBe('insufficient_scope');
    }
  });
});

describe('conditional requests', () => {
  it('answers If-None-Match with 304, without re-running the listing (a list has no Last-Modified to answer a date with)', async () => {
    const path = `/api/v1/events?city=${city}&include=categories,images&limit=50`;
    const first = await call('GET', path);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect(first.headers.get('vary')).toMatch(/\bAuthorization\b/);
    expect(first.headers.get('last-modified')).toBeNull();

    const conditionalGet = async () => {
      const again = await call('GET', path, undefined, { 'if-none-match': tag });
      expect(again.status).toBe(304);
      expect(again.body).toBeUndefined();
      expect(again.headers.get('etag')).toBe(tag);
    };
    // Asked for the second time: the validator, then the listing, whose answer is kept.
    expect(await countStatements(conditionalGet)).toBe(secondAsking);
    // From then on only the validator's one primary-key lookup: no listing, no relations (or the listing alone, nothing kept).
    expect(await countStatements(conditionalGet)).toBe(1);
    // Undated, a list is not answered 304 to a date.
    expect((await call('GET', path, undefined, { 'if-modified-since': new Date().toUTCString() })).status).toBe(200);
    expect((await call('GET', path, undefined, { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('answers a repeated GET from the answer it kept, with the validator its only statement, until the data changes', async () => {
    const path = `/api/v1/events?city=${city}&limit=4&include=images&sort=-starts_at`;
    const first = await call('GET', path);
    // Asked for once: the listing alone. Asked again: the validator and the listing, kept.
    expect(await countStatements(() => call('GET', path))).toBe(secondAsking);
    let again: Awaited<ReturnType<ApiCall>> | undefined;
    expect(await countStatements(async () => (again = await call('GET', path)))).toBe(1);
    expect(again!.body).toEqual(first.body);
    expect(again!.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again!.headers.get('link')).toBe(first.headers.get('link'));
    await server.prisma.event.update({ where: { id: first.body.data[0].id }, data: { venue: 'The Moved Venue' } });
    const changed = await call('GET', path);
    expect(changed.body.data[0].venue).toBe('The Moved Venue');
    expect(changed.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });

  it('answers a GraphQL query asked again from the answer it kept, per caller, until the data changes', async () => {
    const query = `query($city: String) { events(city: $city, first: 3) { edges { node { id venue images { url } } } } }`;
    const ask = (client: ApiCall = call) => client('POST', '/graphql', { query, variables: { city } });
    const first = await ask();
    // Kept from the second time it is asked for; the data version is then the only statement.
    expect(await countStatements(ask)).toBe(secondAsking);
    let again: Awaited<ReturnType<ApiCall>> | undefined;
    expect(await countStatements(async () => (again = await ask()))).toBe(1);
    expect(again!.body).toEqual(first.body);

    // Another caller without directory:read is refused, not served the cached response.
    const bookingsOnly = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read'] })).key);
    const refused = await ask(bookingsOnly);
    expect(refused.body.errors[0].extensions.code).toBe('insufficient_scope');
    expect(refused.body.data).toBeNull();

    const firstId = first.body.data.events.edges[0].node.id;
    await server.prisma.event.update({ where: { id: firstId }, data: { venue: 'The GraphQL Venue' } });
    const changed = await ask();
    expect(changed.body.data.events.edges[0].node).toMatchObject({ id: firstId, venue: 'The GraphQL Venue' });
  });

  it('never keeps an answer with errors, nor one of a query reaching fields without a data version', async () => {
    const missing = `{ event(id: "evt_missing") { id } }`;
    const mixed = `{ viewer { accountId } categories(first: 2) { edges { node { slug } } } }`;
    for (const query of [missing, mixed]) {
      await call('POST', '/graphql', { query });
      await call('POST', '/graphql', { query });
      // A cached response would cost the data version alone; these still read the records.
      statements = [];
      await call('POST', '/graphql', { query });
      expect(statements.some((sql) => /FROM ("public"\.)?"(events|categories)"/.test(sql))).toBe(true);
    }
    expect((await call('POST', '/graphql', { query: missing })).body.errors[0].extensions.code).toBe('not_found');
  });

  it('changes the tag when a listed record changes', async () => {
    const path = `/api/v1/events?city=${city}&limit=5`;
    const before = await call('GET', path);
    const tag = before.headers.get('etag')!;
    expect((await call('GET', path, undefined, { 'if-none-match': tag })).status).toBe(304);
    await server.prisma.event.update({ where: { id: before.body.data[0].id }, data: { title: 'Renamed for the test' } });
    const after = await call('GET', path, undefined, { 'if-none-match': tag });
    expect(after.status).toBe(200);
    expect(after.body.data[0].title).toBe('Renamed for the test');
  });

  it('changes the tag when an embedded image changes, though images have no update time', async () => {
    const path = `/api/v1/events?city=${city}&limit=5&include=images`;
    const before = await call('GET', path);
    const tag = before.headers.get('etag')!;
    expect((await call('GET', path, undefined, { 'if-none-match': tag })).status).toBe(304);
    await server.prisma.image.update({ where: { id: before.body.data[0].images[0].id }, data: { alt: 'A new description' } });
    const after = await call('GET', path, undefined, { 'if-none-match': tag });
    expect(after.status).toBe(200);
    expect(after.body.data[0].images[0].alt).toBe('A new description');
  });

  it('reads If-Modified-Since as an HTTP-date in any of its three forms, and ignores anything else', async () => {
    const [event] = (await call('GET', '/api/v1/events?limit=1')).body.data;
    const path = `/api/v1/events/${event.id}`;
    // Now, after the record's date: IMF-fixdate, RFC 850 and asctime.
    const now = new Date();
    const [weekday, day, month, year, time] = now.toUTCString().replace(',', '').split(' ') as [string, string, string, string, string];
    const fullWeekday = now.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
    for (const form of [now.toUTCString(), `${fullWeekday}, ${day}-${month}-${year.slice(2)} ${time} GMT`, `${weekday} ${month} ${day.replace(/^0/, ' ')} ${time} ${year}`]) {
      expect((await call('GET', path, undefined, { 'if-modified-since': form })).status, form).toBe(304);
    }
    // A date still to come is invalid (RFC 9110 §13.1.3): no client can have seen the record then.
    expect((await call('GET', path, undefined, { 'if-modified-since': 'Sun, 01 Jan 2045 00:00:00 GMT' })).status).toBe(200);
    // Not HTTP-dates, though Date.parse reads them: a date the server does not understand validates nothing.
    for (const other of ['2045-01-01T00:00:00Z', '2045-01-01', 'January 1, 2045']) {
      expect((await call('GET', path, undefined, { 'if-modified-since': other })).status, other).toBe(200);
    }
  });

  it("revalidates an attraction when time passes one of its events' start, which moves next_starts_at", async () => {
    // Outside the city whose records other tests here update, so only time moves this one.
    const attraction = await server.prisma.attraction.findFirstOrThrow({
      where: { eventCount: { gte: 2 }, cityKey: { not: city.toLowerCase() } },
      include: { events: { orderBy: { startsAt: 'asc' } } },
    });
    const [first, second] = attraction.events as [(typeof attraction.events)[number], (typeof attraction.events)[number]];
    const path = `/api/v1/attractions/${attraction.id}`;
    try {
      frozenNow = new Date(first.startsAt.getTime() - 1000);
      const before = await call('GET', path);
      expect(before.body.next_starts_at).toBe(isoSeconds(first.startsAt));
      const validators = { 'if-none-match': before.headers.get('etag')!, 'if-modified-since': before.headers.get('last-modified')! };
      expect((await call('GET', path, undefined, validators)).status).toBe(304);

      frozenNow = new Date(first.startsAt.getTime() + 1000);
      const byTag = await call('GET', path, undefined, { 'if-none-match': validators['if-none-match'] });
      expect(byTag.status).toBe(200);
      expect(byTag.body.next_starts_at).toBe(isoSeconds(second.startsAt));
      expect(byTag.body.updated_at).toBe(isoSeconds(first.startsAt));
      expect((await call('GET', path, undefined, { 'if-modified-since': validators['if-modified-since'] })).status).toBe(200);
    } finally {
      frozenNow = null;
    }
  });
});

describe('GraphQL twin', () => {
  it('serves events with includes, node lookups and a complexity limit', async () => {
    const query = `query($city: String) { events(city: $city, first: 3, orderBy: [{ field: STARTS_AT, direction: ASC }]) {
      edges { node { id title priceMin categories { slug } images { url alt } attraction { name nextStartsAt } } } } }`;
    const response = await call('POST', '/graphql', { query, variables: { city: city.toLowerCase() } });
    expect(response.body.errors).toBeUndefined();
    const [edge] = response.body.data.events.edges;
    const node = await call('POST', '/graphql', { query: `{ node(id: "${edge.node.id}") { id ... on Event { title } } }` });
    expect(node.body.data.node).toEqual({ id: edge.node.id, title: edge.node.title });
    const deep = 'attraction { events(first: 100) { edges { node { '.repeat(6) + 'id' + ' } } } }'.repeat(6);
    const tooComplex = await call('POST', '/graphql', { query: `{ events(first: 100) { edges { node { ${deep} } } } }` });
    expect(tooComplex.body.errors[0].extensions.code).toBe('query_too_complex');
  });
});

describe('OpenAPI', () => {
  it('documents the ranges of the search parameters, which the server refuses past', async () => {
    const document = (await call('GET', '/api/v1/openapi.json')).body;
    for (const path of ['/api/v1/events', '/api/v1/attractions']) {
      const schemas = Object.fromEntries(
        document.paths[path].get.parameters
          .filter((parameter: { name?: string }) => parameter.name)
          .map((parameter: { name: string; schema: object }) => [parameter.name, parameter.schema]),
      );
      expect(schemas).toMatchObject({
        lat: { minimum: -90, maximum: 90 },
        lng: { minimum: -180, maximum: 180 },
        radius: { exclusiveMinimum: 0, maximum: 500 },
        available_for: { type: 'integer', minimum: 1, maximum: 1000 },
      });
    }
    for (const [query, parameter] of [
      ['lat=90.01&lng=0&radius=1', 'lat'],
      ['lat=0&lng=-180.01&radius=1', 'lng'],
      ['lat=0&lng=0&radius=0', 'radius'],
      ['lat=0&lng=0&radius=500.01', 'radius'],
      ['available_for=1001', 'available_for'],
    ]) {
      const refused = await call('GET', `/api/v1/attractions?${query}`);
      expect([query, refused.status, refused.body.errors?.[0]?.field]).toEqual([query, 400, parameter]);
    }
    expect((await call('GET', '/api/v1/attractions?lat=90&lng=-180&radius=500&available_for=1000&limit=1')).status).toBe(200);
  });

  it('documents every directory route with its parameters and conditional responses at /api/v1/openapi.json', async () => {
    const document = (await call('GET', '/api/v1/openapi.json')).body;
    expect(document.openapi).toMatch(/^3\.1\./);
    const resolve = (ref: string) =>
      ref
        .slice(2)
        .split('/')
        .reduce((node, key) => node[key], document);
    const listParameters = ['city', 'category', 'starts_after', 'starts_before', 'q', 'include', 'fields', 'sort', 'limit', 'cursor'];
    const expected: Record<string, string[]> = {
      '/api/v1/events': listParameters,
      '/api/v1/events/{id}': ['id', 'include', 'fields'],
      '/api/v1/attractions': listParameters,
      '/api/v1/attractions/{id}': ['id', 'include', 'fields'],
      '/api/v1/categories': ['fields', 'limit', 'cursor'],
      '/api/v1/categories/{id_or_slug}': ['id_or_slug', 'fields'],
    };
    for (const [path, parameters] of Object.entries(expected)) {
      const operation = document.paths[path]?.get;
      expect(operation, path).toBeDefined();
      const names = operation.parameters.map((parameter: { name?: string; $ref?: string }) => (parameter.$ref ? resolve(parameter.$ref) : parameter).name);
      // A record is dated and takes If-Modified-Since; a list is not (records leave it without a date moving forward).
      const validators = path.endsWith('}') ? ['If-None-Match', 'If-Modified-Since'] : ['If-None-Match'];
      expect(names, path).toEqual(expect.arrayContaining([...parameters, ...validators]));
      expect(names.includes('If-Modified-Since'), path).toBe(path.endsWith('}'));
      expect(Object.keys(operation.responses), path).toEqual(expect.arrayContaining(['200', '304', '401', '403']));
    }
  });
});
