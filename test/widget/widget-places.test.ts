import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Browser, Page, WebSocket as PageWebSocket } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWidgetToken } from '../../src/access/admin.js';
import { newId } from '../../src/shared/ids.js';
import { buildWidget } from '../../src/widget/build.js';
import { widgetSnippet } from '../../src/widget/snippet.js';
import { everyFiveMinutes } from '../support/bookable.js';
import { launchChromium } from '../support/browser.js';
import { apiClient, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { closePages, openPage, settledState, startHostSite, startRelay, type HostSite, type OpenedPage, type PageOptions, type Relay } from './harness.js';

/**
 * The widget's places left (places, window) and near, in Chromium on a page of another origin,
 * against a real server: badges from the availability of each event's attraction's services, kept
 * live over one GraphQL WebSocket. The page keeps the real clock, as the server does.
 */

const hourMs = 3_600_000;
const screenshots = fileURLToPath(new URL('../../test-results/widget/', import.meta.url));
const city = 'Lanternfield';
const timezone = 'America/New_York';
/** Out in the Atlantic, where nothing else is. */
const here = { lat: 44, lng: -30 };
const party = 2;
const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };
/** The window: two hourly slots, starting at least an hour from now. */
const firstSlot = new Date(Math.ceil(Date.now() / hourMs) * hourMs + hourMs);
const secondSlot = new Date(firstSlot.getTime() + hourMs);
const window = { from: firstSlot.toISOString(), to: new Date(firstSlot.getTime() + 2 * hourMs).toISOString() };

let api: TestServer;
let host: HostSite;
let relay: Relay;
let browser: Browser;
let token: string;
let booker: ApiCall;
let admin: ApiCall;
let accountId: string;

interface Place {
  title: string;
  eventId: string;
  serviceId: string | null;
}
/** By distance from `here`; their events start in the opposite order, so nearest first differs from soonest first. */
const places: Record<'open' | 'few' | 'soldOut' | 'noService' | 'far' | 'closed', Place> = {} as never;

/** An attraction `km` east of `here` with one event, and a service of `capacity` places every hour in its season (none without). */
async function openPlace(title: string, km: number, startsAt: Date, capacity: number | null, schedule = everyFiveMinutes()): Promise<Place> {
  const attractionId = newId('attraction');
  const longitude = here.lng + km / (111.195 * Math.cos((here.lat * Math.PI) / 180));
  const where = { city, cityKey: city.toLowerCase(), region: 'LF', latitude: here.lat, longitude };
  await api.prisma.attraction.create({ data: { id: attractionId, name: title, description: 'A test place.', ...where } });
  const eventId = newId('event');
  await api.prisma.event.create({
    data: {
      id: eventId,
      attractionId,
      title,
      description: 'A test night.',
      ...where,
      venue: `${title} grounds`,
      address: '1 Lantern Lane',
      startsAt,
      endsAt: new Date(startsAt.getTime() + 3 * hourMs),
      timezone,
      priceMin: 10,
      priceMax: 20,
      url: `https://lanternfield.example/${eventId}`,
    },
  });
  if (capacity === null) return { title, eventId, serviceId: null };
  const serviceId = newId('service');
  await api.prisma.service.create({
    data: { id: serviceId, name: `${title} entry`, attractionId, capacity, ...schedule, slotMinutes: 60, durationMinutes: 60 },
  });
  return { title, eventId, serviceId };
}

async function book(serviceId: string, startTime: Date, partySize: number): Promise<string> {
  const answer = await booker('POST', '/v1/bookings', { service_id: serviceId, start_time: startTime.toISOString(), party_size: partySize, customer });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return String(answer.body.id);
}

async function cancel(bookingId: string): Promise<void> {
  expect((await booker('DELETE', `/v1/bookings/${bookingId}`)).status).toBe(200);
}

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  await buildWidget();
  [api, host, browser] = await Promise.all([startTestServer(), startHostSite(), launchChromium()]);
  relay = await startRelay(api.url);
  accountId = await api.createAccount('Lanternfield guide');
  // Every page of this file is one visitor's address: more than a visitor's share of the default limit.
  token = (await createWidgetToken(api.prisma, { accountId, allowedOrigins: [host.origin, api.url], rateLimitPerMinute: 6_000 })).id;
  booker = apiClient(api.url, (await api.createKey({ scopes: ['bookings:read', 'bookings:write', 'directory:read'] })).key);
  admin = apiClient(api.url, (await api.createKey({ scopes: ['admin'] })).key);
  const startsAt = (minutes: number) => new Date(firstSlot.getTime() + minutes * 60_000);
  places.open = await openPlace('Open Lantern Walk', 2, startsAt(40), 20);
  places.few = await openPlace('Few Left Hayride', 6, startsAt(30), 20);
  places.soldOut = await openPlace('Sold Out Crypt', 10, startsAt(20), 4);
  places.noService = await openPlace('Pumpkin Show', 14, startsAt(10), null);
  places.far = await openPlace('Far Farm Maze', 40, startsAt(0), 20);
  // Its season ended long ago: no slot at all in any window.
  places.closed = await openPlace('Closed Manor', 60, startsAt(50), 20, everyFiveMinutes(Date.now() - 1_000 * 24 * hourMs));
  await book(places.few.serviceId!, firstSlot, 17);
  for (const slot of [firstSlot, secondSlot]) await book(places.soldOut.serviceId!, slot, 3);
});

afterEach(closePages);

afterAll(async () => {
  relay?.drop();
  await relay?.close();
  await browser?.close();
  await host?.close();
  await api?.close();
});

function hostPage(options: Record<string, string | number>, container = ''): string {
  const snippet = widgetSnippet({ scriptUrl: `${api.url}/widget.v1.js`, containerId: 'events', options: { token, ...options } });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lanternfield tonight</title></head><body><main><h1>Our site</h1>${container || snippet}</main></body></html>`;
}

function openHostPage(html: string, options: PageOptions = {}): Promise<OpenedPage> {
  return openPage(browser, `${host.origin}${host.add(html)}`, options);
}

/** The page's widget WebSockets, and the GraphQL operations each sent. */
function watchSockets(page: Page): { sockets: PageWebSocket[]; operations: string[] } {
  const watched = { sockets: [] as PageWebSocket[], operations: [] as string[] };
  page.on('websocket', (socket) => {
    watched.sockets.push(socket);
    socket.on('framesent', ({ payload }) => {
      const message = JSON.parse(String(payload)) as { type: string; payload?: { query?: string } };
      const name = /^\s*(?:query|subscription|mutation)\s+(\w+)/.exec(message.payload?.query ?? '')?.[1];
      if (message.type === 'subscribe') watched.operations.push(name ?? 'anonymous');
    });
  });
  return watched;
}

const placesLine = (page: Page, title: string, container = '#events') => page.locator(`${container} li.event`).filter({ hasText: title }).locator('.places');

/**
 * "Room for 2 at 7:00 PM · 20 places left" for a slot; the day shows when the slot is not on today's
 * date where the event is (late in New York's evening, the next slots are tomorrow there).
 */
function roomFor(startTime: string, remaining: number): string {
  const start = new Date(startTime);
  const dateThere = (instant: Date) => new Intl.DateTimeFormat('en-US', { timeZone: timezone, dateStyle: 'short' }).format(instant);
  const sameDay = dateThere(start) === dateThere(new Date());
  const at = new Intl.DateTimeFormat('en-US', { timeZone: timezone, ...(sameDay ? {} : { weekday: 'short' }), hour: 'numeric', minute: '2-digit' }).format(start);
  return `Room for ${party} ${sameDay ? 'at' : 'on'} ${at} · ${remaining} places left`;
}

/** What the badge should say, from GET /v1/services/{id}/availability: the soonest slot of the window with room for the party. */
async function expectedBadge(serviceId: string): Promise<string> {
  const day = (time: Date) => time.toISOString().slice(0, 10);
  const answer = await booker('GET', `/v1/services/${serviceId}/availability?start_date=${day(firstSlot)}&end_date=${day(secondSlot)}`);
  expect(answer.status).toBe(200);
  const slots = (answer.body.data as { start_time: string; capacity: number; remaining: number }[]).filter(
    (slot) => Date.parse(slot.start_time) >= Date.parse(window.from) && Date.parse(slot.start_time) < Date.parse(window.to),
  );
  const best = slots.find((slot) => slot.remaining >= party);
  if (!best) return slots.length > 0 ? 'Sold out' : 'No times in this window';
  const room = roomFor(best.start_time, best.remaining);
  return best.remaining <= Math.max(party, Math.ceil(best.capacity / 5)) ? `Few left · ${room}` : room;
}

async function expectBadgesMatchAvailability(page: Page): Promise<void> {
  for (const place of [places.open, places.few, places.soldOut, places.closed]) {
    await expect.poll(() => placesLine(page, place.title).textContent(), { timeout: 15_000 }).toBe(await expectedBadge(place.serviceId!));
  }
}

/** A host page whose container gives the options as data attributes (data-from/data-to: the window). */
function attributesPage(attributes: Record<string, string | number>): string {
  const data = Object.entries({ token, ...attributes })
    .map(([name, value]) => `data-${name}="${String(value)}"`)
    .join(' ');
  return hostPage(
    {},
    `<div id="events" ${data}></div>
<script>window.HalloweenEvents = { q: [], render: function () { this.q.push(arguments); } }; HalloweenEvents.render("#events");</script>
<script async src="${api.url}/widget.v1.js"></script>`,
  );
}

const inWindow = { city, places: party, from: window.from, to: window.to };

describe('places left in the widget', () => {
  it('shows places left, few left, sold out and not open as the availability API answers them, and no badge without a service', async () => {
    const { page, pageErrors } = await openHostPage(attributesPage(inWindow));
    expect(await settledState(page, '#events')).toBe('events');
    await expectBadgesMatchAvailability(page);
    const kinds = await Promise.all([places.open, places.few, places.soldOut, places.closed].map((place) => placesLine(page, place.title).getAttribute('data-places')));
    expect(kinds).toEqual(['open', 'few', 'sold-out', 'closed']);
    expect(await placesLine(page, places.closed.title).textContent()).toBe('No times in this window');
    expect(await placesLine(page, places.noService.title).isHidden()).toBe(true);
    expect(await placesLine(page, places.open.title).textContent()).toMatch(/^Room for 2 (at|on [A-Z][a-z]{2}) \d{1,2}:00 [AP]M · 20 places left$/);
    expect(pageErrors).toEqual([]);
  });

  it('says in the console what is wrong with places, window, near or radius, and still lists the events', async () => {
    const { page, console: messages } = await openHostPage(attributesPage({ city, places: 101, from: window.to, to: window.from, near: '91,0', radius: 0 }));
    expect(await settledState(page, '#events')).toBe('events');
    expect(messages).toEqual([
      '[HalloweenEvents] places must be a whole number from 1 to 100; it is left out.',
      '[HalloweenEvents] window must be "tonight" or { from, to }: ISO timestamps at most 7 days apart, from first; using tonight.',
      '[HalloweenEvents] near must be "me", "lat,lng" or { lat, lng } in degrees; events are not sorted by distance.',
      '[HalloweenEvents] radius must be a number from 1 to 500; using 25.',
    ]);
    expect(await page.locator('#events li.event').count()).toBe(6);
    expect(await page.locator('#events .places:not([hidden])').count()).toBe(0);
    expect(await page.locator('#events .distance').count()).toBe(0);
  });

  it('counts tonight by default: the soonest slot from now on', async () => {
    const { page } = await openHostPage(hostPage({ city, places: party }));
    const now = Date.now();
    const day = (time: number) => new Date(time).toISOString().slice(0, 10);
    const answer = await booker('GET', `/v1/services/${places.open.serviceId}/availability?start_date=${day(now)}&end_date=${day(now + 86_400_000)}`);
    // Tonight ends at the next 06:00 where the event is: in the hour before it, no hourly slot is left.
    const localHour = (time: number) => Number(new Intl.DateTimeFormat('en-US', { timeZone: timezone, hour: 'numeric', hourCycle: 'h23' }).format(time));
    let morning = Math.floor(now / hourMs) * hourMs + hourMs;
    for (let hours = 1; hours < 24 && localHour(morning) !== 6; hours++) morning += hourMs;
    const next = (answer.body.data as { start_time: string; remaining: number }[]).find((slot) => Date.parse(slot.start_time) > now && Date.parse(slot.start_time) < morning);
    const expected = next ? roomFor(next.start_time, next.remaining) : 'No times left tonight';
    await expect.poll(() => placesLine(page, places.open.title).textContent(), { timeout: 15_000 }).toBe(expected);
    await expect.poll(() => placesLine(page, places.closed.title).textContent(), { timeout: 15_000 }).toBe('No times left tonight');
  });

  it('updates a badge live when a place is taken and when it is freed, over one WebSocket, announcing only that change', async () => {
    let watched!: ReturnType<typeof watchSockets>;
    const { page } = await openHostPage(attributesPage(inWindow), { prepare: async (page) => (watched = watchSockets(page)) });
    await expectBadgesMatchAvailability(page);
    const line = placesLine(page, places.open.title);
    const before = (await line.textContent())!;

    const bookingId = await book(places.open.serviceId!, firstSlot, 5);
    await expect.poll(() => line.textContent(), { timeout: 15_000 }).toBe(await expectedBadge(places.open.serviceId!));
    expect(await line.textContent()).toMatch(/· 15 places left$/);
    const announced = page.locator('#events [aria-live=polite]');
    await expect.poll(() => announced.textContent()).toBe(`${places.open.title}: ${await line.textContent()}`);

    await cancel(bookingId);
    await expect.poll(() => line.textContent(), { timeout: 15_000 }).toBe(before);
    await expect.poll(() => announced.textContent()).toBe(`${places.open.title}: ${before}`);
    // One socket for the page, whatever the number of services it follows.
    expect(watched.sockets).toHaveLength(1);
    expect(new Set(watched.operations)).toEqual(new Set(['WidgetServices', 'WidgetAvailability', 'WidgetPlaces']));
  });

  it('reconnects after the connection drops, and shows a change made meanwhile', async () => {
    let watched!: ReturnType<typeof watchSockets>;
    const { page } = await openHostPage(attributesPage({ ...inWindow, 'api-base': `${relay.url}/` }), { prepare: async (page) => (watched = watchSockets(page)) });
    await expectBadgesMatchAvailability(page);
    const line = placesLine(page, places.open.title);
    const before = (await line.textContent())!;

    relay.drop();
    await expect.poll(() => watched.sockets[0]?.isClosed()).toBe(true);
    const bookingId = await book(places.open.serviceId!, firstSlot, 4);
    // Nothing can reach the page while the network is down.
    expect(await line.textContent()).toBe(before);
    relay.restore();
    await expect.poll(() => line.textContent(), { timeout: 30_000 }).toBe(await expectedBadge(places.open.serviceId!));
    expect(await line.textContent()).toMatch(/· 16 places left$/);
    expect(watched.sockets.length).toBeGreaterThanOrEqual(2);
    await cancel(bookingId);
    await expect.poll(() => line.textContent(), { timeout: 15_000 }).toBe(before);
  });
});

/** The events' titles in the order the widget lists them, with their distance lines. */
function listed(page: Page) {
  return page
    .locator('#events li.event')
    .evaluateAll((items) => items.map((item) => ({ title: item.querySelector('h3 a')?.firstChild?.textContent, distance: item.querySelector('.distance')?.textContent ?? null })));
}

/** What the directory answers near `here` within the default radius, nearest first, as the widget should show it. */
async function nearestFirst() {
  const answer = await booker('GET', `/api/v1/events?city=${city}&lat=${here.lat}&lng=${here.lng}&radius=25&sort=distance&fields=title,distance_km`);
  expect(answer.status).toBe(200);
  return (answer.body.data as { title: string; distance_km: number }[]).map((event) => ({
    title: event.title,
    distance: `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(event.distance_km)} km`,
  }));
}

describe('near', () => {
  it('lists the events nearest the given point first, with their distances', async () => {
    const expected = await nearestFirst();
    expect(expected.map((event) => event.title)).toEqual([places.open, places.few, places.soldOut, places.noService].map((place) => place.title));
    const { page } = await openHostPage(hostPage({ city, near: `${here.lat},${here.lng}` }));
    expect(await settledState(page, '#events')).toBe('events');
    expect(await listed(page)).toEqual(expected);
    expect(await page.locator('#events h2').textContent()).toBe('Halloween events nearby');
    expect(await page.locator('#events button.near').count()).toBe(0);
  });

  it('asks for the visitor’s location only when they press Near me, then lists the nearest first', async () => {
    const { page, apiCalls } = await openHostPage(hostPage({ city, near: 'me' }), {
      permissions: ['geolocation'],
      geolocation: { latitude: here.lat, longitude: here.lng },
      prepare: (page) =>
        page.addInitScript(() => {
          const asked = { count: 0 };
          (window as unknown as { asked: typeof asked }).asked = asked;
          const original = navigator.geolocation.getCurrentPosition.bind(navigator.geolocation);
          navigator.geolocation.getCurrentPosition = (...args) => {
            asked.count += 1;
            original(...args);
          };
        }),
    });
    expect(await settledState(page, '#events')).toBe('events');
    expect((await listed(page)).map((event) => event.distance)).toEqual(Array(6).fill(null));
    expect(await page.evaluate(() => (window as unknown as { asked: { count: number } }).asked.count)).toBe(0);

    await page.locator('#events button.near').click();
    await expect.poll(() => page.locator('#events .location').textContent()).toBe('Showing the events nearest you first.');
    expect(await settledState(page, '#events')).toBe('events');
    await expect.poll(() => listed(page)).toEqual(await nearestFirst());
    expect(Object.fromEntries(new URL(apiCalls.at(-1)!.request.url()).searchParams)).toMatchObject({
      lat: String(here.lat),
      lng: String(here.lng),
      radius: '25',
      sort: 'distance',
    });
  });

  it('keeps the list and says why when the visitor does not share their location', async () => {
    const { page } = await openHostPage(hostPage({ city, near: 'me' }));
    expect(await settledState(page, '#events')).toBe('events');
    const before = await listed(page);
    await page.locator('#events button.near').click();
    await expect.poll(() => page.locator('#events .location').textContent()).toBe('Your location was not shared, so events are not sorted by distance.');
    expect(await page.locator('#events .location').getAttribute('role')).toBe('status');
    expect(await listed(page)).toEqual(before);
  });
});

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations on the page, every rule and impact, shadow roots included. */
async function axeViolations(page: Page): Promise<{ id: string; impact: string | null; targets: string[] }[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const { violations } = await (
      window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }> } }
    ).axe.run(document, {
      resultTypes: ['violations'],
    });
    return violations.map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.map((node) => JSON.stringify(node.target)) }));
  });
}

describe('accessibility', () => {
  it.each(['pumpkin', 'midnight', 'classic'])('the demo page in the %s theme, with places and near, has no axe violation of any impact', async (theme) => {
    const {
      page,
      pageErrors,
      console: messages,
    } = await openPage(browser, `${api.url}/widget/demo?token=${token}&city=${city}&category=&places=${party}&near=me&theme=${theme}`, {
      permissions: ['geolocation'],
      geolocation: { latitude: here.lat, longitude: here.lng },
    });
    expect(await settledState(page, '#halloween-events')).toBe('events');
    const line = placesLine(page, places.open.title, '#halloween-events');
    // Tonight ends at 06:00 there: in the hour before, no hourly slot is left and the line says so.
    await expect.poll(() => line.getAttribute('data-places'), { timeout: 15_000 }).toMatch(/^(open|closed)$/);
    expect(await axeViolations(page)).toEqual([]);

    const nearMe = page.locator('#halloween-events button.near');
    await nearMe.focus();
    // A visible focus ring: the button is a real button, reached and pressed from the keyboard.
    expect(await nearMe.evaluate((button) => getComputedStyle(button).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#halloween-events .distance').count()).toBe(4);
    await expect.poll(() => placesLine(page, places.soldOut.title, '#halloween-events').getAttribute('data-places'), { timeout: 15_000 }).not.toBe('checking');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}places-${theme}.png`, fullPage: true });
    expect(messages).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

describe('what a widget token may do', () => {
  it('the widget reads only the directory and availability; the token is refused the rest, readably', async () => {
    const requests: string[] = [];
    let watched!: ReturnType<typeof watchSockets>;
    const { page } = await openHostPage(attributesPage(inWindow), {
      prepare: async (page) => {
        watched = watchSockets(page);
        page.on('request', (request) => request.url().startsWith(api.url) && requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
      },
    });
    await expectBadgesMatchAvailability(page);
    expect(new Set(requests)).toEqual(new Set(['GET /widget.v1.js', 'GET /api/v1/events']));
    expect(watched.sockets.map((socket) => new URL(socket.url()).pathname)).toEqual(['/graphql']);
    expect(new Set(watched.operations)).toEqual(new Set(['WidgetServices', 'WidgetAvailability', 'WidgetPlaces']));

    // The same token, from the same page: the bookings list and the services list are 403, over REST and GraphQL.
    const refused = await page.evaluate(
      async ({ base, credential }) => {
        const rest = async (path: string) => {
          const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${credential}` } });
          return { status: response.status, code: ((await response.json()) as { code: string }).code };
        };
        const overSocket = await new Promise<unknown>((resolve) => {
          const socket = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
          socket.onopen = () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${credential}` } }));
          socket.onmessage = (event) => {
            const message = JSON.parse(String(event.data)) as { type: string; payload?: unknown };
            if (message.type === 'connection_ack') socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '{ bookings { edges { node { id } } } }' } }));
            else if (message.type === 'next' || message.type === 'error') {
              socket.close();
              resolve(message.payload);
            }
          };
          socket.onclose = (event) => resolve({ closed: event.code, reason: event.reason });
        });
        return { bookings: await rest('/v1/bookings'), services: await rest('/v1/services'), overSocket };
      },
      { base: api.url, credential: token },
    );
    expect(refused.bookings).toEqual({ status: 403, code: 'insufficient_scope' });
    expect(refused.services).toEqual({ status: 403, code: 'insufficient_scope' });
    expect(refused.overSocket).toMatchObject({ errors: [{ extensions: { code: 'insufficient_scope' } }] });
  });

  it('says so in each badge when the token is revoked while the page is open, and stops reconnecting', async () => {
    const revocable = (await createWidgetToken(api.prisma, { accountId, allowedOrigins: [host.origin] })).id;
    let watched!: ReturnType<typeof watchSockets>;
    const { page, console: messages } = await openHostPage(attributesPage({ ...inWindow, token: revocable }), { prepare: async (page) => (watched = watchSockets(page)) });
    await expectBadgesMatchAvailability(page);

    expect((await admin('DELETE', `/v1/admin/widget_tokens/${revocable}`)).status).toBe(200);
    for (const place of [places.open, places.few, places.soldOut]) {
      await expect.poll(() => placesLine(page, place.title).textContent(), { timeout: 15_000 }).toBe('Places left cannot be shown right now');
    }
    expect(messages.some((line) => line.includes('was refused (4403'))).toBe(true);
    expect(watched.sockets).toHaveLength(1);
  });
});
