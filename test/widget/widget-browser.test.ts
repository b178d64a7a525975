import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWidgetToken } from '../../src/access/admin.js';
import { buildWidget } from '../../src/widget/build.js';
import { widgetSnippet } from '../../src/widget/snippet.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { launchChromium } from '../support/browser.js';
import { closedOrigin, closePages, lowestContrast, openPage, settledState, startHostSite, type HostSite, type OpenedPage, type PageOptions } from './harness.js';

/** The widget lists events from "today" on; the page's clock is fixed so the seeded data gives the same answer every year. */
const now = new Date('2026-11-22T12:00:00Z');
const screenshots = fileURLToPath(new URL('../../test-results/widget/', import.meta.url));

let api: TestServer;
let host: HostSite;
let browser: Browser;
let token: string;

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  await buildWidget();
  [api, host, browser] = await Promise.all([startTestServer({ seed: true }), startHostSite(), launchChromium()]);
  const accountId = await api.createAccount('Haunted host site');
  token = (await createWidgetToken(api.prisma, { accountId, allowedOrigins: [host.origin] })).id;
});

afterEach(closePages);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await api?.close();
});

interface WidgetOnPage {
  id?: string;
  options: Record<string, string | number>;
}

/** A host page with the README snippet for each widget, plus `head` (styles) and `body` (extra markup or scripts). */
function hostPage(widgets: WidgetOnPage[], extra: { head?: string; body?: string } = {}): string {
  const snippets = widgets.map(({ id = 'events', options }) => widgetSnippet({ scriptUrl: `${api.url}/widget.v1.js`, containerId: id, options }));
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>A haunted host site</title>${extra.head ?? ''}</head><body><h1>Our site</h1>${snippets.join('\n')}${extra.body ?? ''}</body></html>`;
}

function openHostPage(html: string, options: PageOptions & { origin?: string } = {}): Promise<OpenedPage> {
  const { origin = host.origin, ...pageOptions } = options;
  return openPage(browser, `${origin}${host.add(html)}`, { now, ...pageOptions });
}

/** The seeded events the widget should list, straight from the database. */
function expectedEvents(city: string, category: string, limit: number) {
  return api.prisma.event.findMany({
    where: { cityKey: city.toLowerCase(), categories: { some: { slug: category } }, startsAt: { gte: new Date('2026-11-22T00:00:00Z') } },
    orderBy: [{ startsAt: 'asc' }],
    take: limit,
    include: { images: { orderBy: { position: 'asc' }, take: 1 } },
  });
}

function items(page: Page, container = '#events') {
  return page.locator(`${container} li.event`);
}

describe('widget.v1.js in Chromium, embedded in a page of another origin', () => {
  it('renders the city’s events of the category from a call queued before the script loaded', async () => {
    const expected = await expectedEvents('Salem', 'haunted-house', 4);
    const allOfThem = await expectedEvents('Salem', 'haunted-house', 100);
    expect(allOfThem.length).toBeGreaterThan(4);

    const html = hostPage([{ options: { token, city: 'salem', category: 'haunted-house', limit: 4, attributionLink: 'https://partner.example/events' } }]);
    const { page, pageErrors, console: messages, apiCalls } = await openHostPage(html);
    expect(await settledState(page, '#events')).toBe('events');
    expect(apiCalls).toHaveLength(1);
    const { request } = apiCalls[0]!;

    const query = new URL(request.url()).searchParams;
    expect(new URL(request.url()).origin).toBe(api.url);
    expect(Object.fromEntries(query)).toMatchObject({ city: 'salem', category: 'haunted-house', limit: '4', include: 'images', starts_after: '2026-11-22' });
    expect(await request.headerValue('authorization')).toBe(`Bearer ${token}`);

    await expect.poll(() => items(page).count()).toBe(4);
    expect(await page.locator('#events ul.events').getAttribute('role')).toBe('list');
    expect(await page.locator('#events h2').textContent()).toBe('Halloween events in Salem');
    const shown = await items(page).evaluateAll((elements) =>
      elements.map((item) => ({
        title: item.querySelector('h3 a')?.firstChild?.textContent,
        href: item.querySelector('h3 a')?.getAttribute('href'),
        datetime: item.querySelector('time')?.getAttribute('datetime'),
        when: item.querySelector('time')?.textContent,
        where: item.querySelector('.where')?.textContent,
        price: item.querySelector('.price')?.textContent,
        alt: item.querySelector('img')?.getAttribute('alt'),
      })),
    );
    expect(shown.map((event) => event.title).sort()).toEqual(expected.map((event) => event.title).sort());
    for (const event of expected) {
      const item = shown.find((candidate) => candidate.title === event.title)!;
      expect(item.href).toBe(event.url);
      expect(item.datetime).toBe(event.startsAt.toISOString().replace('.000Z', 'Z'));
      expect(item.where).toBe(`${event.venue}, Salem`);
      expect(item.price).toMatch(/^\$\d+(\.\d\d)?( – \$\d+(\.\d\d)?)?$|^Free/);
      expect(item.alt).toBe(event.images[0]?.alt);
      // The browser is in Tokyo; the time shown is the event's own, with its zone's name.
      const parts = new Intl.DateTimeFormat('en-US', { timeZone: event.timezone, hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).formatToParts(event.startsAt);
      const part = (type: string) => parts.find((candidate) => candidate.type === type)?.value;
      expect(item.when).toContain(`${part('hour')}:${part('minute')}`);
      expect(item.when).toContain(part('timeZoneName'));
    }

    // Every event link is reachable from the keyboard, in order.
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.querySelector('#events')!.shadowRoot!.activeElement?.textContent);
    expect(focused).toContain(shown[0]!.title);
    expect(pageErrors).toEqual([]);
    expect(messages).toEqual([]);
  });

  it('shows every event when there are fewer than the limit, and takes render() calls after loading', async () => {
    const pumpkinPatches = await expectedEvents('Salem', 'pumpkin-patch', 100);
    expect(pumpkinPatches.length).toBeGreaterThan(0);
    expect(pumpkinPatches.length).toBeLessThan(10);
    const html = hostPage([{ options: { token, city: 'Salem', category: 'pumpkin-patch' } }], { body: '<div id="later"></div>' });
    const { page, pageErrors } = await openHostPage(html);
    expect(await settledState(page, '#events')).toBe('events');
    await expect.poll(() => items(page).count()).toBe(pumpkinPatches.length);

    const festivals = await expectedEvents('Salem', 'festival', 2);
    await page.evaluate((options) => (window as unknown as { HalloweenEvents: { render(target: string, options: object): void } }).HalloweenEvents.render('#later', options), {
      token,
      city: 'Salem',
      category: 'festival',
      limit: 2,
      theme: 'classic',
    });
    expect(await settledState(page, '#later')).toBe('events');
    await expect.poll(() => items(page, '#later').count()).toBe(festivals.length);
    expect(pageErrors).toEqual([]);
  });

  it('has three themes with different colours, each passing WCAG AA contrast, in lists and in errors', async () => {
    const themes = ['pumpkin', 'midnight', 'classic'] as const;
    const html = hostPage(
      [
        ...themes.map((theme) => ({ id: theme, options: { token, city: 'Salem', category: 'haunted-house', limit: 3, theme, attributionLink: 'https://partner.example/' } })),
        ...themes.map((theme) => ({ id: `${theme}-error`, options: { token: 'wt_unknownToken123', city: 'Salem', theme, attributionLink: 'https://partner.example/' } })),
      ],
      { head: '<style>body{display:grid;grid-template-columns:repeat(3,1fr);gap:16px;align-items:start}h1{grid-column:1/-1}</style>' },
    );
    const { page } = await openHostPage(html, { viewport: { width: 1400, height: 1200 } });
    const colours: string[] = [];
    for (const theme of themes) {
      expect(await settledState(page, `#${theme}`)).toBe('events');
      expect(await settledState(page, `#${theme}-error`)).toBe('error');
      const widget = page.locator(`#${theme} .widget`);
      colours.push(await widget.evaluate((element) => `${getComputedStyle(element).backgroundColor} ${getComputedStyle(element.querySelector('.header')!).backgroundColor}`));
      for (const container of [`#${theme}`, `#${theme}-error`]) {
        const contrast = await lowestContrast(page, container);
        expect(contrast.lowest, `${container}: "${contrast.text}"`).toBeGreaterThanOrEqual(4.5);
      }
      await page.locator(`#${theme}`).screenshot({ path: `${screenshots}${theme}.png` });
      await page.locator(`#${theme}-error`).screenshot({ path: `${screenshots}${theme}-error.png` });
    }
    expect(new Set(colours).size).toBe(3);
  });

  it('fits a 320 px wide phone screen without scrolling sideways', async () => {
    const html = hostPage([{ options: { token, city: 'Salem', category: 'haunted-house', limit: 3, theme: 'midnight', attributionLink: 'https://partner.example/' } }], {
      head: '<style>body{margin:8px}</style>',
    });
    const { page } = await openHostPage(html, { viewport: { width: 320, height: 900 }, isMobile: true, hasTouch: true });
    expect(await settledState(page, '#events')).toBe('events');
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, viewport: window.innerWidth }));
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
    const overflowing = await page.locator('#events li.event').evaluateAll((elements) => elements.filter((element) => element.scrollWidth > element.clientWidth).length);
    expect(overflowing).toBe(0);
    await page.screenshot({ path: `${screenshots}narrow-320.png`, fullPage: true });
  });

  it('links the attribution to the given URL, and leaves out one that is not http(s)', async () => {
    const html = hostPage([
      { id: 'given', options: { token, city: 'Salem', attributionLink: 'https://partner.example/halloween?ref=widget' } },
      { id: 'script', options: { token, city: 'Salem', attributionLink: 'javascript:alert(1)' } },
    ]);
    const { page, console: messages } = await openHostPage(html);
    await settledState(page, '#given');
    await settledState(page, '#script');
    expect(await page.locator('#given a.attribution').getAttribute('href')).toBe('https://partner.example/halloween?ref=widget');
    expect(await page.locator('#script a.attribution').count()).toBe(0);
    expect(messages.some((message) => message.includes('attributionLink must be an http(s) URL'))).toBe(true);
  });

  it('keeps the host page’s CSS out', async () => {
    const options = { token, city: 'Salem', category: 'haunted-house', limit: 2, theme: 'classic' };
    const hostile = `<style>
      html { font-size: 8px } * { color: #ff00ff !important; font-family: "Comic Sans MS", cursive !important; letter-spacing: 4px; text-transform: uppercase; line-height: 4 }
      ul, li { display: inline; list-style: disc; padding: 40px } a { color: lime !important; text-decoration: none } img { display: none !important }
      h2, h3 { font-size: 60px; } section, div { background: yellow !important; border: 5px dashed red } p { margin: 50px }
    </style>`;
    const computed = async (html: string) => {
      const { page } = await openHostPage(html);
      await settledState(page, '#events');
      const styles = await page.locator('#events').evaluate((container) => {
        const root = container.shadowRoot!;
        const pick = (selector: string, properties: string[]) => {
          const style = getComputedStyle(root.querySelector(selector)!);
          return Object.fromEntries(properties.map((property) => [property, style.getPropertyValue(property)]));
        };
        return {
          widget: pick('.widget', ['color', 'background-color', 'font-family', 'font-size', 'letter-spacing', 'line-height', 'text-transform']),
          title: pick('h3 a', ['color', 'font-size', 'text-decoration-line', 'font-family']),
          list: pick('ul', ['display', 'list-style-type', 'padding-top']),
          item: pick('li', ['display', 'padding-top', 'background-color']),
          image: pick('img', ['display']),
          paragraph: pick('p.when', ['margin-top', 'color']),
        };
      });
      return styles;
    };
    const clean = await computed(hostPage([{ options }]));
    const attacked = await computed(hostPage([{ options }], { head: hostile }));
    expect(attacked).toEqual(clean);
    expect(clean.widget['font-size']).toBe('16px');
    expect(clean.image['display']).toBe('block');
  });

  it('explains a bad token, an unknown city, a missing token and a network failure in the widget', async () => {
    const unreachableApi = await closedOrigin();
    const html = hostPage([
      { id: 'bad-token', options: { token: 'wt_notARealToken42', city: 'Salem' } },
      { id: 'unknown-city', options: { token, city: 'Atlantis', category: 'haunted-house' } },
      { id: 'no-token', options: { city: 'Salem' } },
      { id: 'offline', options: { token, city: 'Salem', apiBase: unreachableApi } },
    ]);
    const { page, pageErrors, console: messages } = await openHostPage(html);
    const message = (id: string) => page.locator(`#${id} .status`).textContent();

    expect(await settledState(page, '#bad-token')).toBe('error');
    expect(await message('bad-token')).toBe('This events widget has an invalid token, so it cannot show events.');
    expect(await settledState(page, '#unknown-city')).toBe('empty');
    expect(await message('unknown-city')).toBe('No upcoming haunted house events in Atlantis.');
    expect(await settledState(page, '#no-token')).toBe('error');
    expect(await message('no-token')).toBe('This events widget has no token, so it cannot show events.');
    expect(await settledState(page, '#offline')).toBe('error');
    expect(await message('offline')).toBe('Events could not be loaded. Check your connection and try again.');
    expect(await page.locator('#offline button.retry').isVisible()).toBe(true);

    expect(messages.some((line) => line.includes('401 unauthenticated'))).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it('shows a loading state, and an error with a Try again button that loads the events once the network is back', async () => {
    const html = hostPage([{ options: { token, city: 'Salem', category: 'pumpkin-patch' } }]);
    let released: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (released = resolve));
    let attempts = 0;
    // The first load fails as if offline; the second waits until the test has seen the loading state.
    const { page } = await openHostPage(html, {
      prepare: (page) =>
        page.route(`${api.url}/api/v1/events?**`, async (route) => {
          if (route.request().method() !== 'GET') return route.continue();
          attempts += 1;
          if (attempts === 1) return route.abort('internetdisconnected');
          await held;
          return route.continue();
        }),
    });
    expect(await settledState(page, '#events')).toBe('error');
    await page.locator('#events button.retry').click();
    const widget = page.locator('#events .widget');
    expect(await widget.getAttribute('data-state')).toBe('loading');
    expect(await widget.getAttribute('aria-busy')).toBe('true');
    expect(await page.locator('#events .status').textContent()).toBe('Loading events…');
    released();
    expect(await settledState(page, '#events')).toBe('events');
    expect(await items(page).count()).toBe((await expectedEvents('Salem', 'pumpkin-patch', 10)).length);
    expect(await page.locator('#events .status').textContent()).toMatch(/^\d+ events?$/);
  });

  it('reports a bad selector and a missing container in the console, without throwing into the page', async () => {
    const html = hostPage([], {
      body: `<script>
        window.HalloweenEvents = window.HalloweenEvents || { q: [], render: function () { this.q.push(arguments); } };
        HalloweenEvents.render('#events[', { token: ${JSON.stringify(token)} });
        HalloweenEvents.render('#nowhere', { token: ${JSON.stringify(token)} });
        HalloweenEvents.render(42, {});
      </script><script async src="${api.url}/widget.v1.js"></script>`,
    });
    const { pageErrors, console: messages } = await openHostPage(html);
    await expect.poll(() => messages.length).toBe(3);
    expect(messages).toEqual([
      '[HalloweenEvents] "#events[" is not a valid CSS selector.',
      '[HalloweenEvents] No element matches "#nowhere"; add the container (e.g. <div id="events"></div>) before calling render().',
      '[HalloweenEvents] render(selector, options) needs a CSS selector such as "#events", or an element.',
    ]);
    expect(pageErrors).toEqual([]);
  });

  it('fails for a token used from an origin it does not allow', async () => {
    const html = hostPage([{ options: { token, city: 'Salem', category: 'haunted-house' } }]);
    const { page, pageErrors, apiCalls, console: messages } = await openHostPage(html, { origin: host.otherOrigin });
    expect(await settledState(page, '#events')).toBe('error');
    // The API refuses the origin, and lets the page read why: no network failure to hunt for.
    expect(apiCalls.map(({ status, failure }) => ({ status, failure }))).toEqual([{ status: 403, failure: null }]);
    expect(await items(page).count()).toBe(0);
    expect(await page.locator('#events .status').textContent()).toContain(`This widget token is not allowed on ${host.otherOrigin}, so it cannot show events here.`);
    // The site owner finds the origins the token allows in the console.
    expect(messages.some((line) => line.includes(`origin_not_allowed: Pages of ${host.otherOrigin} are not allowed to use this widget token; it allows ${host.origin}.`))).toBe(
      true,
    );
    expect(pageErrors).toEqual([]);
  });

  it('runs live on the demo page, under a Content-Security-Policy without inline styles', async () => {
    const { page, pageErrors, console: messages } = await openPage(browser, `${api.url}/widget/demo?token=${token}&city=Salem&category=hayride&theme=midnight`, { now });
    expect(await settledState(page, '#halloween-events')).toBe('events');
    expect(await items(page, '#halloween-events').count()).toBe((await expectedEvents('Salem', 'hayride', 10)).length);
    expect(await page.locator('#halloween-events .widget').evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(15, 11, 30)');
    expect(await page.locator('pre code').textContent()).toContain(`<script async src="${api.url}/widget.v1.js"></script>`);
    await page.screenshot({ path: `${screenshots}demo.png`, fullPage: true });
    expect(messages).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
