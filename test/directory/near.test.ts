import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distanceKm } from '../../src/directory/near.js';
import { newId } from '../../src/shared/ids.js';
import { apiClient, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let call: ApiCall;

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  call = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
});
afterAll(() => server?.close());

interface Listed {
  id: string;
  latitude: number;
  longitude: number;
  distance_km: number | null;
}

/** Every record of a REST list, page after page. */
async function everyPage(path: string, pageSize = 37): Promise<Listed[]> {
  const rows: Listed[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page: { status: number; body: { data: Listed[]; next_cursor: string | null } } = await call(
      'GET',
      `${path}${separator}limit=${pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    rows.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return rows;
}

const newYork = { lat: 40.7128, lng: -74.006 };

describe('great-circle distances', () => {
  // Published great-circle distances on the mean-radius sphere, to within 0.1 %.
  it.each([
    ['New York – Los Angeles', 40.7128, -74.006, 34.0522, -118.2437, 3935.7],
    ['London – Paris', 51.5074, -0.1278, 48.8566, 2.3522, 343.6],
    ['Boston – New York', 42.3601, -71.0589, 40.7128, -74.006, 306.1],
    ['Sydney – Auckland', -33.8688, 151.2093, -36.8485, 174.7633, 2156.6],
    // Antipodes on the equator: half the circumference, π × the mean radius.
    ['(0, 0) – (0, 180)', 0, 0, 0, 180, Math.PI * 6371.0088],
  ])('%s', (_name, fromLat, fromLng, toLat, toLng, km) => {
    expect(Math.abs(distanceKm(fromLat, fromLng, toLat, toLng) - km) / km).toBeLessThan(0.001);
    expect(distanceKm(toLat, toLng, fromLat, fromLng)).toBeCloseTo(distanceKm(fromLat, fromLng, toLat, toLng), 9);
  });
});

describe('near on GET /api/v1/events', () => {
  it.each([40, 180, 500])('keeps exactly the events within %s km, nearest first, each with its distance, page after page', async (radius) => {
    const everyEvent = await server.prisma.event.findMany({ select: { id: true, latitude: true, longitude: true } });
    const expected = everyEvent
      .map((event) => ({ id: event.id, km: distanceKm(newYork.lat, newYork.lng, event.latitude, event.longitude) }))
      .filter((event) => event.km <= radius)
      .sort((a, b) => a.km - b.km || (a.id < b.id ? -1 : 1));
    expect(expected.length).toBeGreaterThan(10);
    // Farther than the radius, but inside its bounding box's corner: the box alone would keep them.
    expect(everyEvent.some((event) => distanceKm(newYork.lat, newYork.lng, event.latitude, event.longitude) > radius)).toBe(true);

    const found = await everyPage(`/api/v1/events?lat=${newYork.lat}&lng=${newYork.lng}&radius=${radius}`, radius > 100 ? 97 : 37);
    expect(found.map((event) => event.id)).toEqual(expected.map((event) => event.id));
    // In kilometres, to 0.01 km.
    for (const [index, event] of found.entries()) expect(event.distance_km).toBe(Math.round(expected[index]!.km * 100) / 100);
  });

  it('sort=-distance keeps the same events, farthest first, page after page, and so does DISTANCE DESC over GraphQL', async () => {
    const nearest = await everyPage(`/api/v1/events?lat=${newYork.lat}&lng=${newYork.lng}&radius=180`, 97);
    expect(nearest.length).toBeGreaterThan(10);
    const farthest = await everyPage(`/api/v1/events?lat=${newYork.lat}&lng=${newYork.lng}&radius=180&sort=-distance`, 13);
    expect(farthest.map((event) => event.id)).toEqual(nearest.map((event) => event.id).reverse());
    const graphql = await call('POST', '/graphql', {
      query: `{ events(lat: ${newYork.lat}, lng: ${newYork.lng}, radius: 180, orderBy: [{ field: DISTANCE, direction: DESC }], first: 5) { edges { node { id } } } }`,
    });
    expect(graphql.body.data.events.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual(farthest.slice(0, 5).map((event) => event.id));
  });

  it('weighs a farthest-first search as one that reads its whole radius: aliases of it past the cost limit are refused before running', async () => {
    const aliases = (direction: string) =>
      `{ ${Array.from({ length: 30 }, (_, index) => `s${index}: events(lat: ${newYork.lat}, lng: ${newYork.lng}, radius: 500, orderBy: [{ field: DISTANCE, direction: ${direction} }], first: 1) { edges { node { id } } }`).join(' ')} }`;
    const farthest = await call('POST', '/graphql', { query: aliases('DESC') });
    expect(farthest.body.errors?.[0]?.extensions?.code).toBe('query_too_complex');
    expect(farthest.body.data).toBeUndefined();
    const nearest = await call('POST', '/graphql', { query: aliases('ASC') });
    expect(nearest.body.errors).toBeUndefined();
  });

  it('sort=distance is the default with a point, and radius_unit=mi takes the radius in miles (distances stay in km)', async () => {
    const kilometres = await call('GET', `/api/v1/events?lat=${newYork.lat}&lng=${newYork.lng}&radius=40&limit=10`);
    const sorted = await call('GET', `/api/v1/events?lat=${newYork.lat}&lng=${newYork.lng}&radius=40&limit=10&sort=distance`);
    expect(sorted.body.data).toEqual(kilometres.body.data);
    const miles = await call('GET', `/api/v1/events?lat=${newYork.lat}&lng=${newYork.lng}&radius=24.85&radius_unit=mi&limit=10`);
    expect(miles.status).toBe(200);
    expect(miles.body.data).toEqual(kilometres.body.data);
    // 24.85 mi is 39.99 km: an event between the two radii is kept by 40 km only.
    const between = await everyPage(`/api/v1/events?lat=${newYork.lat}&lng=${newYork.lng}&radius=24.85&radius_unit=mi`);
    expect(Math.max(...between.map((event) => event.distance_km!))).toBeLessThanOrEqual(24.85 * 1.609344 + 0.005);
  });

  it('combines with every filter and with every other sort', async () => {
    const category = 'haunted-house';
    const cases = [
      `city=new%20york`,
      `category=${category}`,
      `starts_after=2027-10-20&starts_before=2027-10-31`,
      `q=haunt`,
      `city=new%20york&category=${category}&starts_after=2027-10-01&sort=-starts_at`,
      `sort=title`,
      `sort=-price_min,title`,
    ];
    for (const filters of cases) {
      const plain = await everyPage(`/api/v1/events?${filters}${filters.includes('sort=') ? '' : '&sort=starts_at'}`, 100);
      const expected = plain.filter((event) => distanceKm(newYork.lat, newYork.lng, event.latitude, event.longitude) <= 60).map((event) => event.id);
      const near = await everyPage(`/api/v1/events?${filters}${filters.includes('sort=') ? '' : '&sort=starts_at'}&lat=${newYork.lat}&lng=${newYork.lng}&radius=60`, 9);
      expect(
        near.map((event) => event.id),
        filters,
      ).toEqual(expected);
      expect(expected.length, filters).toBeGreaterThan(0);
    }
  });

  it('refuses a malformed point, radius, radius_unit or sort with 400 naming it, and lat, lng and radius given apart', async () => {
    const cases: [string, string][] = [
      ['lat=40.7&radius=10', 'lng'],
      ['lng=-74&radius=10', 'lat'],
      ['lat=40.7&lng=-74', 'radius'],
      ['radius=10', 'lat'],
      ['radius_unit=mi', 'radius_unit'],
      ['lat=91&lng=0&radius=10', 'lat'],
      ['lat=0&lng=-180.5&radius=10', 'lng'],
      ['lat=0&lng=0&radius=0', 'radius'],
      ['lat=0&lng=0&radius=500.1', 'radius'],
      ['lat=0&lng=0&radius=310.7&radius_unit=mi', 'radius'],
      ['lat=0&lng=0&radius=10&radius_unit=parsec', 'radius_unit'],
      ['unit=km', 'unit'],
      ['sort=distance', 'sort'],
      ['lat=0&lng=0&radius=10&sort=distance,title', 'sort'],
      ['lat=north&lng=0&radius=10', 'lat'],
      ['lat=0x28&lng=0&radius=10', 'lat'],
      ['lat=0b101000&lng=0&radius=10', 'lat'],
      ['lat=%2040&lng=0&radius=10', 'lat'],
      ['lat=40&lng=0&radius=0x64', 'radius'],
      ['lat=40&lng=0&radius=', 'radius'],
    ];
    for (const [query, field] of cases) {
      const response = await call('GET', `/api/v1/events?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.errors?.map((error: { field: string }) => error.field) ?? [response.body.field], query).toContain(field);
    }
  });
});

describe('near at the edges of the map', () => {
  /** An attraction placed at a point, with no events. */
  async function placeAttraction(latitude: number, longitude: number): Promise<string> {
    const id = newId('attraction');
    await server.prisma.attraction.create({
      data: { id, name: `Edge ${id}`, description: 'A test point.', city: 'Nowhere', cityKey: 'nowhere', region: 'XX', latitude, longitude },
    });
    return id;
  }
  const near = async (query: string) => (await everyPage(`/api/v1/attractions?${query}`)).map((attraction) => attraction.id);

  it('a point just inside the radius is found and one just outside is not, whichever way it lies', async () => {
    const centre = { lat: -41.3, lng: -140.2 };
    // 0.1° of latitude due north, and a point due east at the same distance (the box's widest longitude).
    const north = await placeAttraction(centre.lat + 0.1, centre.lng);
    const northKm = distanceKm(centre.lat, centre.lng, centre.lat + 0.1, centre.lng);
    let eastLng = centre.lng;
    while (distanceKm(centre.lat, centre.lng, centre.lat, eastLng) < northKm) eastLng += 0.00001;
    const east = await placeAttraction(centre.lat, eastLng);
    const eastKm = distanceKm(centre.lat, centre.lng, centre.lat, eastLng);
    expect(await near(`lat=${centre.lat}&lng=${centre.lng}&radius=${(northKm + 0.001).toFixed(3)}`)).toContain(north);
    expect(await near(`lat=${centre.lat}&lng=${centre.lng}&radius=${(northKm - 0.001).toFixed(3)}`)).not.toContain(north);
    expect(await near(`lat=${centre.lat}&lng=${centre.lng}&radius=${(eastKm + 0.002).toFixed(3)}`)).toContain(east);
    expect(await near(`lat=${centre.lat}&lng=${centre.lng}&radius=${(eastKm - 0.002).toFixed(3)}`)).not.toContain(east);
  });

  it('finds across the antimeridian and around a pole', async () => {
    const west = await placeAttraction(-10, 179.95);
    expect(await near('lat=-10&lng=-179.95&radius=20')).toEqual([west]);
    const polar = await placeAttraction(89.95, -20);
    // Across the pole: 0.1° of latitude away, at the opposite longitude.
    expect(await near('lat=89.95&lng=160&radius=12')).toEqual([polar]);
  });

  it('a list is answered afresh after a record left it, to a client dating its copy: a list has no Last-Modified', async () => {
    const admin = apiClient(server.url, (await server.createKey({ scopes: ['admin'] })).key);
    const staying = await placeAttraction(-33.86, 151.2);
    const leaving = await placeAttraction(-33.861, 151.2);
    const path = '/api/v1/attractions?lat=-33.86&lng=151.2&radius=5';
    const before = await call('GET', path);
    expect(before.body.data.map((attraction: { id: string }) => attraction.id).sort()).toEqual([staying, leaving].sort());
    expect(before.headers.get('last-modified')).toBeNull();
    // The newest date the client could have seen: the leaving record's, newest of the two.
    const since = (await server.prisma.attraction.findUniqueOrThrow({ where: { id: leaving } })).updatedAt.toUTCString();
    expect((await admin('PATCH', `/v1/admin/attractions/${leaving}`, { latitude: 50, longitude: 50 })).status).toBe(200);
    const after = await call('GET', path, undefined, { 'if-modified-since': since });
    expect(after.status).toBe(200);
    expect(after.body.data.map((attraction: { id: string }) => attraction.id)).toEqual([staying]);
  });

  it('an attraction without a location is never near anything, until an operator places it', async () => {
    const unplaced = newId('attraction');
    await server.prisma.attraction.create({
      data: { id: unplaced, name: `Unplaced ${unplaced}`, description: 'No place yet.', city: 'Nowhere', cityKey: 'nowhere', region: 'XX' },
    });
    expect(await near('lat=0&lng=0&radius=500')).not.toContain(unplaced);
    const listed = await call('GET', `/api/v1/attractions/${unplaced}`);
    expect(listed.body).toMatchObject({ latitude: null, longitude: null });

    const admin = apiClient(server.url, (await server.createKey({ scopes: ['admin'] })).key);
    const placed = await admin('PATCH', `/v1/admin/attractions/${unplaced}`, { latitude: 12.5, longitude: -33.25 });
    expect(placed.status).toBe(200);
    expect(placed.body).toMatchObject({ id: unplaced, latitude: 12.5, longitude: -33.25 });
    expect(await near('lat=12.5&lng=-33.3&radius=10')).toEqual([unplaced]);
    expect((await call('GET', `/api/v1/attractions/${unplaced}`)).body).toMatchObject({ latitude: 12.5, longitude: -33.25 });

    const outOfRange = await admin('PATCH', `/v1/admin/attractions/${unplaced}`, { latitude: 95, longitude: -33.25 });
    expect(outOfRange.status).toBe(422);
    expect(outOfRange.body.errors.map((error: { field: string }) => error.field)).toEqual(['latitude']);
    expect((await admin('PATCH', '/v1/admin/attractions/at_none', { latitude: 1, longitude: 1 })).status).toBe(404);
    expect((await call('PATCH', `/v1/admin/attractions/${unplaced}`, { latitude: 1, longitude: 1 })).status).toBe(403);
  });
});
