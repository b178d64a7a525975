import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWidgetToken } from '../../src/access/admin.js';
import { newId } from '../../src/shared/ids.js';
import { buildWidget } from '../../src/widget/build.js';
import { widgetSnippet } from '../../src/widget/snippet.js';
import { launchChromium } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { closePages, lowestContrast, openPage, startHostSite, type HostSite, type OpenedPage } from './harness.js';

/**
 * The booking view of widget.v1.js in Chromium, on a host page of another origin, against a real
 * server. The page keeps the real clock: holds expire by the server's.
 */

const dayMs = 86_400_000;
const visitor = { name: 'Ada Lovelace', email: 'ada@example.com' };

let api: TestServer;
let host: HostSite;
let browser: Browser;
let bookingToken: string;
let directoryToken: string;
let apiKey: string;
let serviceId: string;

/** A slot of the service: `days` from today (UTC), at 18:00, 19:00 or 20:00 UTC. */
function slot(days: number, hour: 18 | 19 | 20): Date {
  const date = new Date(Date.now() + days * dayMs);
  date.setUTCHours(hour, 0, 0, 0);
  return date;
}

beforeAll(async () => {
  await buildWidget();
  [api, host, browser] = await Promise.all([startTestServer({ seed: true }), startHostSite(), launchChromium()]);
  const accountId = await api.createAccount('Haunted host site');
  bookingToken = (await createWidgetToken(api.prisma, { accountId, allowedOrigins: [host.origin], allowBooking: true })).id;
  directoryToken = (await createWidgetToken(api.prisma, { accountId, allowedOrigins: [host.origin] })).id;
  apiKey = (await api.createKey({ accountId, scopes: ['bookings:write'] })).key;
  const attraction = await api.prisma.attraction.findFirstOrThrow({ orderBy: { id: 'asc' } });
  const today = new Date(Math.floor(Date.now() / dayMs) * dayMs);
  serviceId = (
    await api.prisma.service.create({
      data: {
        id: newId('service'),
        name: 'Lantern walk',
        attractionId: attraction.id,
        capacity: 4,
        timezone: 'UTC',
        slotMinutes: 60,
        durationMinutes: 60,
        seasonStart: new Date(today.getTime() - dayMs),
        seasonEnd: new Date(today.getTime() + 30 * dayMs),
        openingHours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, opens: '18:00', closes: '21:00' })),
      },
    })
  ).id;
});

afterEach(closePages);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await api?.close();
});

function openBookingPage(token: string, theme = 'pumpkin', service = serviceId): Promise<OpenedPage> {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Book a lantern walk</title></head><body><h1>Our site</h1>
${widgetSnippet({ scriptUrl: `${api.url}/widget.v1.js`, containerId: 'book', options: { token, service, days: 3, theme } })}</body></html>`;
  return openPage(browser, `${host.origin}${host.add(html)}`);
}

const widget = (page: Page) => page.locator('#book .widget');
const status = (page: Page) => page.locator('#book .status');

/** The slot buttons under the day heading of `time` (the service is in UTC; the browser's locale is en-US). */
function slotButton(page: Page, time: Date, label: RegExp): Locator {
  const dayName = new Intl.DateTimeFormat('en-US', { weekday: 'long', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(time);
  const clock = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).format(time);
  return page
    .locator('#book .day')
    .filter({ has: page.getByRole('heading', { name: dayName, exact: true }) })
    .getByRole('button', { name: new RegExp(`^${clock}, ${label.source}`) });
}

async function fillCustomer(page: Page): Promise<void> {
  await page.locator('#book').getByLabel('Name').fill(visitor.name);
  await page.locator('#book').getByLabel('Email').fill(visitor.email);
}

const holdsAt = (time: Date) => api.prisma.hold.findMany({ where: { serviceId, startTime: time } });

/** Takes every place of a slot with the API key, for 30 minutes: the hold's id. */
async function fill(time: Date): Promise<string> {
  const response = await fetch(`${api.url}/v1/holds`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ service_id: serviceId, start_time: time.toISOString(), party_size: 4, expires_in_seconds: 1800 }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe('the booking view of widget.v1.js, embedded in a page of another origin', () => {
  it('holds the picked slot for the party, counts down, and books it with the visitor as customer', async () => {
    const time = slot(1, 18);
    const { page, pageErrors } = await openBookingPage(bookingToken);
    await slotButton(page, time, /4 places left/).waitFor();
    const party = page.locator('#book').getByLabel('Party size');
    await party.fill('2');
    await party.blur();
    await expect.poll(() => status(page).textContent()).toBe('Pick a time for 2 people.');
    expect((await lowestContrast(page, '#book')).lowest).toBeGreaterThanOrEqual(4.5);
    await page.locator('#book').screenshot({ path: 'test-results/widget/booking-slots.png' });

    await slotButton(page, time, /4 places left/).click();
    await expect.poll(() => widget(page).getAttribute('data-state')).toBe('book');
    expect(await page.evaluate(() => document.querySelector('#book')!.shadowRoot!.activeElement?.id)).toBe('name');
    await expect.poll(async () => (await holdsAt(time)).map((hold) => ({ status: hold.status, partySize: hold.partySize }))).toEqual([{ status: 'held', partySize: 2 }]);
    expect(await status(page).textContent()).toMatch(/is held for you until/);
    await expect.poll(() => page.locator('#book .countdown').textContent()).toMatch(/^(10:00|9:[0-5]\d)$/);
    expect((await lowestContrast(page, '#book')).lowest).toBeGreaterThanOrEqual(4.5);
    await page.locator('#book').screenshot({ path: 'test-results/widget/booking-form.png' });

    await fillCustomer(page);
    await page.locator('#book').getByRole('button', { name: 'Book', exact: true }).click();
    await expect.poll(() => status(page).textContent()).toMatch(/Your booking id is bk_\w+\.$/);
    const bookingId = /(bk_\w+)/.exec((await status(page).textContent()) ?? '')![1]!;
    expect(await api.prisma.booking.findUniqueOrThrow({ where: { id: bookingId } })).toMatchObject({
      serviceId,
      startTime: time,
      partySize: 2,
      customerName: visitor.name,
      customerEmail: visitor.email,
      status: 'confirmed',
    });
    expect(await holdsAt(time)).toMatchObject([{ status: 'converted', bookingId }]);
    expect(pageErrors).toEqual([]);
  });

  it('offers the waitlist for a full slot, and when the slot fills before the hold (409 slot_full)', async () => {
    const full = slot(1, 20);
    const fillsLater = slot(1, 19);
    await fill(full);
    const { page } = await openBookingPage(bookingToken);

    await slotButton(page, full, /full: join the waitlist/).click();
    await expect.poll(() => widget(page).getAttribute('data-state')).toBe('waitlist');
    await fillCustomer(page);
    await page.locator('#book').getByRole('button', { name: 'Join the waitlist' }).click();
    await expect.poll(() => status(page).textContent()).toMatch(/^You are on the waitlist for .*, number 1 in line\./);
    expect(await api.prisma.waitlistEntry.findMany({ where: { serviceId, startTime: full } })).toMatchObject([
      { status: 'waiting', partySize: 1, customerName: visitor.name, customerEmail: visitor.email },
    ]);

    await page.locator('#book').getByRole('button', { name: 'Book another time' }).click();
    const stale = slotButton(page, fillsLater, /4 places left/);
    await stale.waitFor();
    await fill(fillsLater);
    await stale.click();
    await expect.poll(() => widget(page).getAttribute('data-state')).toBe('waitlist');
    expect(await status(page).textContent()).toMatch(/has no room for 1\. Join the waitlist/);
  });

  it('takes a waitlist join that is offered places at once to the form, filled in, and books the offer', async () => {
    const time = slot(2, 20);
    const held = await fill(time);
    const { page, pageErrors } = await openBookingPage(bookingToken);
    await slotButton(page, time, /full: join the waitlist/).click();
    await expect.poll(() => widget(page).getAttribute('data-state')).toBe('waitlist');
    // The places come back while the visitor fills in the form.
    const released = await fetch(`${api.url}/v1/holds/${held}`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}` } });
    expect(released.status).toBe(200);
    await fillCustomer(page);
    await page.locator('#book').getByRole('button', { name: 'Join the waitlist' }).click();

    await expect.poll(() => widget(page).getAttribute('data-state')).toBe('book');
    expect(await status(page).textContent()).toMatch(/^Places just freed up: .* is held for you until/);
    expect(await page.locator('#book').getByLabel('Name').inputValue()).toBe(visitor.name);
    expect(await page.locator('#book').getByLabel('Email').inputValue()).toBe(visitor.email);
    await page.locator('#book').getByRole('button', { name: 'Book', exact: true }).click();
    await expect.poll(() => status(page).textContent()).toMatch(/Your booking id is bk_\w+\.$/);
    const [entry] = await api.prisma.waitlistEntry.findMany({ where: { serviceId, startTime: time } });
    expect(entry).toMatchObject({ status: 'booked', customerName: visitor.name });
    expect(await api.prisma.hold.findUniqueOrThrow({ where: { id: entry!.holdId! } })).toMatchObject({ status: 'converted', createdBy: bookingToken });
    expect(pageErrors).toEqual([]);
  });

  it('gives the places back on Cancel', async () => {
    const time = slot(2, 18);
    const { page } = await openBookingPage(bookingToken, 'midnight');
    await slotButton(page, time, /4 places left/).click();
    await expect.poll(() => widget(page).getAttribute('data-state')).toBe('book');
    expect((await lowestContrast(page, '#book')).lowest).toBeGreaterThanOrEqual(4.5);
    await expect.poll(async () => (await holdsAt(time)).map((hold) => hold.status)).toEqual(['held']);

    await page.locator('#book').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => status(page).textContent()).toBe('The places were given back.');
    expect((await holdsAt(time)).map((hold) => hold.status)).toEqual(['released']);
    await slotButton(page, time, /4 places left/).waitFor();
    expect((await lowestContrast(page, '#book')).lowest).toBeGreaterThanOrEqual(4.5);
  });

  it('says so when the hold expired before Book (409 hold_expired), and shows the slots again', async () => {
    const time = slot(2, 19);
    const { page } = await openBookingPage(bookingToken);
    await slotButton(page, time, /4 places left/).click();
    await expect.poll(async () => (await holdsAt(time)).length).toBe(1);
    // The server's clock moves past the hold's expiry; the page still counts down.
    await api.prisma.hold.updateMany({ where: { serviceId, startTime: time }, data: { expiresAt: new Date(Date.now() - 1000) } });

    await fillCustomer(page);
    await page.locator('#book').getByRole('button', { name: 'Book', exact: true }).click();
    await expect.poll(() => status(page).textContent()).toBe('Your hold expired, so the places were given back. Pick a time again.');
    expect(await widget(page).getAttribute('data-state')).toBe('slots');
    await slotButton(page, time, /\d places? left/).waitFor();
    expect(await api.prisma.booking.count({ where: { serviceId, startTime: time } })).toBe(0);
  });

  it('shows a widget token that may not book the slots (availability is public), and refuses the hold readably', async () => {
    const time = slot(2, 20);
    const { page, console: messages } = await openBookingPage(directoryToken);
    await slotButton(page, time, /\d+ places? left/).click();
    await expect.poll(() => widget(page).getAttribute('data-state')).toBe('error');
    expect(await status(page).textContent()).toBe('This booking widget is not allowed to take bookings.');
    expect(await page.locator('#book form').count()).toBe(0);
    expect(messages.join('\n')).toMatch(/answered 403 insufficient_scope: .*bookings:book/);
    expect(await api.prisma.hold.count({ where: { createdBy: directoryToken } })).toBe(0);
  });

  it('says it is set up wrongly for a service that does not exist', async () => {
    const { page } = await openBookingPage(bookingToken, 'classic', 'svc_doesnotexist');
    await expect.poll(() => widget(page).getAttribute('data-state')).toBe('error');
    expect(await status(page).textContent()).toBe('This booking widget is set up wrongly: No service with id "svc_doesnotexist".');
  });
});
