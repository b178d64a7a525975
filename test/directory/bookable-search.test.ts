import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWidgetToken } from '../../src/access/admin.js';
import { newId } from '../../src/shared/ids.js';
import { everyFiveMinutes } from '../support/bookable.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * available_for: attractions (and events, through their attraction's services) with a slot in a
 * window with room for a party, checked against what each service's availability answers.
 */

let server: TestServer;
let directory: ApiCall;
let booker: ApiCall;
let statements: string[] = [];
/** The attractions each read of their services and places was sent (its first value). */
let roomReads: string[][] = [];

/** A place of its own in the Atlantic, where the seed puts nothing. */
const here = { lat: 31.5, lng: -41.25 };
/** The window: three 5-minute slots, three days ahead. */
const from = futureSlot(3, 18);
const to = new Date(Date.parse(from) + 15 * 60_000).toISOString().replace('.000Z', 'Z');
const slotStarts = [0, 5, 10].map((minutes) => new Date(Date.parse(from) + minutes * 60_000).toISOString().replace('.000Z', 'Z'));
const customer = { name: 'Ada Test', email: 'ada@example.com' };

interface Place {
  attractionId: string;
  serviceId: string;
}
let places: Place[];

/** An attraction `km` east of `origin` (about), with one service of `capacity` places bookable every 5 minutes. */
async function openPlace(km: number, capacity: number, origin = here): Promise<Place> {
  const attractionId = newId('attraction');
  const longitude = origin.lng + km / (111.195 * Math.cos((origin.lat * Math.PI) / 180));
  await server.prisma.attraction.create({
    data: { id: attractionId, name: `Room test ${km} km`, description: 'A test place.', city: 'Atlantis', cityKey: 'atlantis', region: 'AT', latitude: origin.lat, longitude },
  });
  const serviceId = newId('service');
  await server.prisma.service.create({ data: { id: serviceId, name: `Entry ${km} km`, attractionId, capacity, ...everyFiveMinutes() } });
  return { attractionId, serviceId };
}

beforeAll(async () => {
  server = await startTestServer({
    seed: true,
    onQuery: (sql, values) => {
      statements.push(sql);
      if (values && /FROM services AS s WHERE s\.attraction_id = ANY/.test(sql)) roomReads.push(values[0] as string[]);
    },
  });
  directory = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
  booker = apiClient(server.url, (await server.createKey()).key);
  places = [await openPlace(5, 6), await openPlace(10, 6), await openPlace(15, 6), await openPlace(40, 6)];
});
afterAll(() => server?.close());

interface Found {
  id: string;
  distance_km: number;
  next_slots: { service_id: string; start_time: string; end_time: string; remaining: number }[] | null;
}

const search = (party: number, extra = '', headers: Record<string, string> = {}) =>
  directory('GET', `/api/v1/attractions?lat=${here.lat}&lng=${here.lng}&radius=20&available_for=${party}&available_from=${from}&available_to=${to}${extra}`, undefined, headers);

/** What each place's availability says: its slots in the window with room for `party`. */
async function expectedFor(party: number): Promise<{ id: string; slots: { start_time: string; remaining: number }[] }[]> {
  const expected = [];
  for (const place of places.slice(0, 3)) {
    const day = from.slice(0, 10);
    const availability = await booker('GET', `/v1/services/${place.serviceId}/availability?start_date=${day}&end_date=${day}`);
    expect(availability.status).toBe(200);
    const slots = (availability.body.data as { start_time: string; remaining: number }[])
      .filter((slot) => slotStarts.includes(slot.start_time) && slot.remaining >= party)
      .map((slot) => ({ start_time: slot.start_time, remaining: slot.remaining }));
    if (slots.length) expected.push({ id: place.attractionId, slots });
  }
  return expected;
}

async function expectSearchMatchesAvailability(party: number) {
  const found = await search(party);
  expect(found.status, JSON.stringify(found.body)).toBe(200);
  const answered = (found.body.data as Found[]).map((attraction) => ({
    id: attraction.id,
    slots: attraction.next_slots!.map((slot) => ({ start_time: slot.start_time, remaining: slot.remaining })),
  }));
  expect(answered).toEqual(await expectedFor(party));
}

const book = (place: Place, start: string, party: number) => booker('POST', '/v1/bookings', { service_id: place.serviceId, start_time: start, party_size: party, customer });

describe('available_for on GET /api/v1/attractions', () => {
  it('keeps the places with a slot for the party, nearest first, with their soonest slots', async () => {
    const all = await search(6);
    expect(all.status).toBe(200);
    expect((all.body.data as Found[]).map((attraction) => attraction.id)).toEqual(places.slice(0, 3).map((place) => place.attractionId));
    for (const attraction of all.body.data as Found[]) {
      expect(attraction.next_slots!.map((slot) => slot.start_time)).toEqual(slotStarts);
      expect(attraction.next_slots!.every((slot) => slot.remaining === 6 && Date.parse(slot.end_time) - Date.parse(slot.start_time) === 5 * 60_000)).toBe(true);
    }
    // Without a party size there is no nextSlots.
    const plain = await directory('GET', `/api/v1/attractions?lat=${here.lat}&lng=${here.lng}&radius=20`);
    expect((plain.body.data as Found[]).every((attraction) => attraction.next_slots === null)).toBe(true);
  });

  it('follows bookings and cancels: a slot short of the party drops out, and comes back when a place is freed', async () => {
    const [first, second, third] = places;
    // First place: every slot keeps 5 places, too few for 6.
    for (const start of slotStarts) expect((await book(first!, start, 1)).status).toBe(201);
    // Third place: its first slot is full.
    const full = await book(third!, slotStarts[0]!, 6);
    expect(full.status).toBe(201);
    await expectSearchMatchesAvailability(6);
    const six = (await search(6)).body.data as Found[];
    expect(six.map((attraction) => attraction.id)).toEqual([second!.attractionId, third!.attractionId]);
    expect(six[1]!.next_slots!.map((slot) => slot.start_time)).toEqual(slotStarts.slice(1));
    await expectSearchMatchesAvailability(5);

    expect((await booker('DELETE', `/v1/bookings/${full.body.id}`)).status).toBe(200);
    await expectSearchMatchesAvailability(6);
    expect(((await search(6)).body.data as Found[]).map((attraction) => attraction.id)).toEqual([second!.attractionId, third!.attractionId]);
  });

  it('agrees with availability while bookings are made at the same time as searches', async () => {
    const second = places[1]!;
    const searches: Promise<{ status: number; body: { data: Found[] } }>[] = [];
    const bookings = slotStarts.flatMap((start) => [book(second, start, 2), book(second, start, 2), book(second, start, 1)]);
    for (let index = 0; index < 6; index++) searches.push(search(2));
    const made = await Promise.all(bookings);
    expect(made.every((response) => response.status === 201)).toBe(true);
    for (const during of await Promise.all(searches)) {
      expect(during.status).toBe(200);
      // Whatever it saw, never a slot with less room than the party.
      for (const attraction of during.body.data) expect(attraction.next_slots!.every((slot) => slot.remaining >= 2)).toBe(true);
    }
    await expectSearchMatchesAvailability(2);
    await expectSearchMatchesAvailability(1);
  });

  it('an answer asked for again moves with the places (the response cache reads the availability data version)', async () => {
    const third = places[2]!;
    const before = await search(4, '&fields=id,next_slots');
    const again = await search(4, '&fields=id,next_slots');
    expect(again.body).toEqual(before.body);
    const [start] = slotStarts;
    const taken = await book(third, start!, 3);
    expect(taken.status).toBe(201);
    const after = await search(4, '&fields=id,next_slots');
    expect(after.body).not.toEqual(before.body);
    await expectSearchMatchesAvailability(4);
  });

  it('a GraphQL answer asked for again moves with the places when the party comes from a variable’s default', async () => {
    const query = `query Room($party: Int = 1) {
      attractions(lat: ${here.lat}, lng: ${here.lng}, radius: 20, availableFor: $party, availableFrom: "${from}", availableTo: "${to}", first: 10) {
        edges { node { id nextSlots { serviceId startTime remaining } } }
      }
    }`;
    const ask = async () => {
      const answer = await directory('POST', '/graphql', { query });
      expect(answer.body.errors).toBeUndefined();
      return answer.body.data.attractions.edges as { node: { nextSlots: { serviceId: string; startTime: string; remaining: number }[] } }[];
    };
    const before = await ask();
    expect(await ask()).toEqual(before);
    const slot = before[0]!.node.nextSlots[0]!;
    expect((await booker('POST', '/v1/bookings', { service_id: slot.serviceId, start_time: slot.startTime, customer })).status).toBe(201);
    const after = await ask();
    expect(after).not.toEqual(before);
    expect(after.flatMap((edge) => edge.node.nextSlots).find((next) => next.serviceId === slot.serviceId && next.startTime === slot.startTime)?.remaining ?? 0).toBe(
      slot.remaining - 1,
    );
  });

  it('is neither dated nor kept over HTTP, since a booking dates no record: only its ETag revalidates it', async () => {
    const first = places[0]!;
    const before = await search(1, '&fields=id,next_slots');
    expect(before.status).toBe(200);
    expect(before.headers.get('last-modified')).toBeNull();
    expect(before.headers.get('cache-control')).toBe('private, max-age=0');
    // What a client that kept the answer sends, with the newest date it could have seen.
    const revalidate = { 'if-modified-since': new Date().toUTCString() };
    expect((await search(1, '&fields=id,next_slots', revalidate)).status).toBe(200);
    expect((await book(first, slotStarts[2]!, 1)).status).toBe(201);
    const after = await search(1, '&fields=id,next_slots', revalidate);
    expect(after.status).toBe(200);
    expect(after.body).not.toEqual(before.body);
    expect((await search(1, '&fields=id,next_slots', { 'if-none-match': after.headers.get('etag')! })).status).toBe(304);
    // Without a party, the directory's lists keep their minute (and, as every list, have no date).
    const plain = await directory('GET', `/api/v1/attractions?lat=${here.lat}&lng=${here.lng}&radius=20`);
    expect(plain.headers.get('cache-control')).toBe('private, max-age=60');
  });

  it("follows an operator's changes to a service: its capacity, and its schedule", async () => {
    const admin = apiClient(server.url, (await server.createKey({ scopes: ['admin'] })).key);
    const fourth = await openPlace(12, 6);
    const ids = async () => ((await search(6)).body.data as Found[]).map((attraction) => attraction.id);
    expect(await ids()).toContain(fourth.attractionId);
    expect((await admin('PATCH', `/v1/admin/services/${fourth.serviceId}`, { capacity: 5 })).status).toBe(200);
    expect(await ids()).not.toContain(fourth.attractionId);
    expect((await admin('PATCH', `/v1/admin/services/${fourth.serviceId}`, { capacity: 8 })).status).toBe(200);
    expect(await ids()).toContain(fourth.attractionId);
    // Open only in the morning (UTC): nothing in the evening window any more.
    const mornings = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, opens: '06:00', closes: '09:00' }));
    expect((await admin('PATCH', `/v1/admin/services/${fourth.serviceId}`, { opening_hours: mornings })).status).toBe(200);
    expect(await ids()).not.toContain(fourth.attractionId);
    await server.prisma.service.delete({ where: { id: fourth.serviceId } });
    await server.prisma.attraction.delete({ where: { id: fourth.attractionId } });
  });

  it('costs a bounded number of statements', async () => {
    await search(1);
    statements = [];
    expect((await search(1, '&limit=2')).status).toBe(200);
    // The server's own background work (usage flushes, the offers worker) reads other tables.
    const searchStatements = statements.filter((sql) => /\b(attractions|services|booking_slots|directory_version|availability_versions|holds)\b/.test(sql));
    // At most: two data versions (directory, places), the candidates, their services, their places, the page.
    expect(searchStatements.length, searchStatements.join('\n')).toBeLessThanOrEqual(6);
  });

  /** The first page of 2, nearest first, with room for `party` in the window; roomReads holds its reads of room. */
  function twoNearest(origin: typeof here, radiusKm: number, party: number) {
    roomReads = [];
    const query = `lat=${origin.lat}&lng=${origin.lng}&radius=${radiusKm}&sort=distance&available_for=${party}&available_from=${from}&available_to=${to}&limit=2`;
    return directory('GET', `/api/v1/attractions?${query}`);
  }

  /** The ids of twoNearest's page, which must be answered. */
  async function firstTwoNearest(origin: typeof here, radiusKm: number, party: number): Promise<string[]> {
    const page = await twoNearest(origin, radiusKm, party);
    expect(page.status).toBe(200);
    return (page.body.data as Found[]).map((attraction) => attraction.id);
  }

  it('weighs room first for about a page of the nearest candidates, not for all of them', async () => {
    // A quiet night: 14 places, each with room.
    const quiet = { lat: 29.5, lng: -44.25 };
    const open = [];
    for (let km = 1; km <= 14; km++) open.push(await openPlace(km, 6, quiet));
    expect(await firstTwoNearest(quiet, 20, 2)).toEqual(open.slice(0, 2).map((place) => place.attractionId));
    // One read, for the 10 nearest: a page of 2 (and one more, for the next page) with a margin.
    expect(roomReads).toEqual([open.slice(0, 10).map((place) => place.attractionId)]);
  });

  it('sizes the next batch by the share the first kept: on a busy night the second read takes what the page still needs', async () => {
    // A busy night: the 20 nearest places are too small for the party, the 3 farthest have room.
    const busy = { lat: 27.5, lng: -47.25 };
    const small = [];
    for (let km = 1; km <= 20; km++) small.push(await openPlace(km, 2, busy));
    const roomy = [await openPlace(21, 6, busy), await openPlace(22, 6, busy), await openPlace(23, 6, busy)];
    expect(await firstTwoNearest(busy, 30, 6)).toEqual(roomy.slice(0, 2).map((place) => place.attractionId));
    // The first read kept none of its 10: the second takes the rest at once.
    expect(roomReads.map((ids) => ids.length)).toEqual([10, 13]);
    expect(roomReads.flat()).toEqual([...small, ...roomy].map((place) => place.attractionId));
  });

  it('answers when room is found within the first 2,000 candidates, and refuses with 400 only past them', async () => {
    // 2,010 attractions in a row, 5 m apart: only a few have services.
    const row = { lat: 25.5, lng: -50.25 };
    const kmPerDegree = 111.195 * Math.cos((row.lat * Math.PI) / 180);
    const ids = Array.from({ length: 2010 }, () => newId('attraction'));
    await server.prisma.attraction.createMany({
      data: ids.map((id, index) => ({
        id,
        name: `Row ${index + 1}`,
        description: 'A test place.',
        city: 'Atlantis',
        cityKey: 'atlantis',
        region: 'AT',
        latitude: row.lat,
        longitude: row.lng + ((index + 1) * 0.005) / kmPerDegree,
      })),
    });
    const serve = (rank: number, capacity: number) =>
      server.prisma.service.create({ data: { id: newId('service'), name: `Entry ${rank}`, attractionId: ids[rank - 1]!, capacity, ...everyFiveMinutes() } });
    // Room for 6 at ranks 1,991 to 1,993; room for 7 only at 2,005 and 2,006.
    for (const rank of [1991, 1992, 1993]) await serve(rank, 6);
    for (const rank of [2005, 2006]) await serve(rank, 8);
    expect(await firstTwoNearest(row, 15, 6)).toEqual([ids[1990], ids[1991]]);
    // Weighed in order, up to the budget and no further.
    expect(roomReads.flat()).toEqual(ids.slice(0, 2000));

    const refused = await twoNearest(row, 15, 7);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'available_for', code: 'too_broad' })]);
    await server.prisma.attraction.deleteMany({ where: { id: { in: ids } } });
  });

  it('refuses a malformed party or window with 400 naming it', async () => {
    const cases: [string, string][] = [
      ['available_for=0', 'available_for'],
      ['available_for=1001', 'available_for'],
      ['available_for=2.5', 'available_for'],
      ['available_for=two', 'available_for'],
      [`available_for=2&available_from=${to}&available_to=${from}`, 'available_to'],
      [`available_for=2&available_from=${from}&available_to=${futureSlot(11, 18)}`, 'available_to'],
      [`available_from=${from}`, 'available_from'],
      ['available_for=2&available_from=tomorrow', 'available_from'],
      ['available_for=2&available_from=10000-01-01T00:00:00Z', 'available_from'],
      ['available_for=2&available_from=9999-12-31T23:59:59.999Z', 'available_from'],
    ];
    for (const [query, field] of cases) {
      const response = await directory('GET', `/api/v1/attractions?${query}`);
      expect(response.status, query).toBe(400);
      expect(
        response.body.errors.map((error: { field: string }) => error.field),
        query,
      ).toContain(field);
    }
    // A window that began days ago is measured from now: what has not started is at most 7 days.
    const days = (count: number) => new Date(Date.now() + count * 86_400_000).toISOString();
    expect((await directory('GET', `/api/v1/attractions?available_for=2&available_from=${days(-6)}&available_to=${days(1)}&limit=1`)).status).toBe(200);
    const ahead = await directory('GET', `/api/v1/attractions?available_for=2&available_from=${days(-6)}&available_to=${days(8)}&limit=1`);
    expect([ahead.status, ahead.body.errors?.[0]?.field]).toEqual([400, 'available_to']);
    // A past available_to with no available_from is before the window's default start, now.
    const past = await directory('GET', `/api/v1/attractions?available_for=2&available_to=${days(-1)}`);
    expect(past.body.errors?.[0]?.message).toBe('available_to must be after available_from (now, when it is not given).');
    // An integer too large for the schema is said to be one, however many digits it has.
    for (const party of ['3000000000', '99999999999999999']) {
      const response = await directory('GET', `/api/v1/attractions?available_for=${party}`);
      expect(response.status, party).toBe(400);
      expect(response.body.errors[0].message, party).toMatch(/non 32-bit signed integer/);
    }
  });

  it('answers a window on the last day there is, whose default end would pass it, on both lists', async () => {
    for (const list of ['attractions', 'events']) {
      const response = await directory('GET', `/api/v1/${list}?available_for=2&available_from=9999-12-31T00:00:00Z`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.data).toEqual([]);
    }
  });
});

describe('available_for on events and over GraphQL', () => {
  it('keeps events whose attraction has room, with its slots', async () => {
    const second = places[1]!;
    const eventId = newId('event');
    await server.prisma.event.create({
      data: {
        id: eventId,
        attractionId: second.attractionId,
        title: 'Room test night',
        description: 'A test event.',
        city: 'Atlantis',
        cityKey: 'atlantis',
        region: 'AT',
        venue: 'The test venue',
        address: '1 Test Street',
        latitude: here.lat,
        longitude: here.lng,
        startsAt: new Date(from),
        endsAt: new Date(to),
        timezone: 'UTC',
        priceMin: 0,
        priceMax: 0,
        url: 'https://example.com/room-test',
      },
    });
    // The same attraction's night of a year before: not bookable in the window, whatever room its attraction has then.
    const yearBefore = (time: string) => new Date(new Date(time).getTime() - 365 * 86_400_000);
    await server.prisma.event.create({
      data: {
        ...(await server.prisma.event.findUniqueOrThrow({ where: { id: eventId } })),
        id: newId('event'),
        title: 'Room test night, last year',
        startsAt: yearBefore(from),
        endsAt: yearBefore(to),
        url: 'https://example.com/room-test-last-year',
      },
    });
    const answer = await directory('GET', `/api/v1/events?city=atlantis&available_for=1&available_from=${from}&available_to=${to}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((found: Found) => found.id)).toEqual([eventId]);
    const [event] = answer.body.data as (Found & { attraction_id: string })[];
    expect(event).toMatchObject({ id: eventId, attraction_id: second.attractionId });
    expect(event!.next_slots!.every((slot) => slot.service_id === second.serviceId)).toBe(true);
    const none = await directory('GET', `/api/v1/events?city=atlantis&available_for=900&available_from=${from}&available_to=${to}`);
    expect(none.body.data).toEqual([]);
  });

  it('answers the same over GraphQL, also to a directory widget token', async () => {
    const query = `query Near($lat: Float!, $lng: Float!, $from: DateTime!, $to: DateTime!) {
      attractions(lat: $lat, lng: $lng, radius: 20, availableFor: 1, availableFrom: $from, availableTo: $to, first: 10) {
        edges { node { id distanceKm nextSlots { serviceId startTime endTime remaining } } }
      }
    }`;
    const graphql = await directory('POST', '/graphql', { query, variables: { lat: here.lat, lng: here.lng, from, to } });
    expect(graphql.status).toBe(200);
    const rest = await search(1);
    const nodes = graphql.body.data.attractions.edges.map((edge: { node: { id: string; distanceKm: number; nextSlots: { remaining: number }[] } }) => edge.node);
    expect(nodes.map((node: { id: string }) => node.id)).toEqual((rest.body.data as Found[]).map((attraction) => attraction.id));
    expect(nodes.map((node: { distanceKm: number }) => node.distanceKm)).toEqual((rest.body.data as Found[]).map((attraction) => attraction.distance_km));

    const widget = await createWidgetToken(server.prisma, { accountId: await server.createAccount(), allowedOrigins: ['https://haunts.example'] });
    const fromWidget = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${widget.id}`, origin: 'https://haunts.example' },
      body: JSON.stringify({ query, variables: { lat: here.lat, lng: here.lng, from, to } }),
    });
    expect(fromWidget.status).toBe(200);
    expect((await fromWidget.json()).data.attractions.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual(nodes.map((node: { id: string }) => node.id));
  });
});
