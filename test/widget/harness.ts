import { createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import type { Browser, BrowserContext, BrowserContextOptions, Page, Request } from 'playwright-core';

/**
 * A host site for the widget on its own origin: pages are registered by path and served as HTML.
 * It listens on 127.0.0.1, so `http://127.0.0.1:<port>` and `http://localhost:<port>` are two
 * origins of one server (one allowed by the token, the other not).
 */
export interface HostSite {
  port: number;
  origin: string;
  otherOrigin: string;
  /** Registers `html` and returns its path. */
  add(html: string): string;
  close(): Promise<void>;
}

export async function startHostSite(): Promise<HostSite> {
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const html = pages.get(request.url ?? '');
    response.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    otherOrigin: `http://localhost:${port}`,
    add(html) {
      const path = `/page-${pages.size + 1}`;
      pages.set(path, html);
      return path;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An origin where nothing listens: a port that was just free. */
export async function closedOrigin(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/**
 * A TCP relay to `target` that the test can cut, as a network that drops: drop() ends every
 * connection through it and refuses new ones until restore().
 */
export interface Relay {
  url: string;
  drop(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRelay(target: string): Promise<Relay> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let down = false;
  const server = createTcpServer((client) => {
    if (down) return client.destroy();
    const upstream = connect(Number(port), hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        open.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    drop() {
      down = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      down = false;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The seeded images live on an unreachable host; the browser gets a drawn stand-in of the same size. */
function standInImage(url: string): string {
  const [, width = '1200', height = '800'] = /-(\d+)x(\d+)\.\w+$/.exec(url) ?? [];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 120 80" preserveAspectRatio="xMidYMid slice">
<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3b0764"/><stop offset="1" stop-color="#ea580c"/></linearGradient></defs>
<rect width="120" height="80" fill="url(#sky)"/><circle cx="88" cy="22" r="11" fill="#fef3c7"/>
<path d="M0 80 L0 60 L18 48 L30 58 L46 40 L64 58 L80 50 L120 66 L120 80 Z" fill="#1c1917"/></svg>`;
}

export interface OpenedPage {
  page: Page;
  /** console.error and console.warn lines. */
  console: string[];
  /** Errors thrown into the page: the widget must never cause one. */
  pageErrors: string[];
  /** Requests to the directory API, with the status of their answers, or why the browser gave none. */
  apiCalls: { request: Request; status: number | null; failure: string | null }[];
}

const openContexts = new Set<BrowserContext>();

/** Closes every page opened since the last call (for afterEach, so a failed test leaves nothing open). */
export async function closePages(): Promise<void> {
  await Promise.all([...openContexts].map((context) => context.close()));
  openContexts.clear();
}

export interface PageOptions extends BrowserContextOptions {
  /** The page's fixed clock. */
  now?: Date;
  /** Runs before the page loads (to route requests, say). */
  prepare?: (page: Page) => Promise<unknown>;
}

export async function openPage(browser: Browser, url: string, options: PageOptions = {}): Promise<OpenedPage> {
  const { now, prepare, ...contextOptions } = options;
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'Asia/Tokyo', ...contextOptions });
  await context.route('https://images.hallowgate.example/**', (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: standInImage(route.request().url()) }));
  openContexts.add(context);
  const page = await context.newPage();
  if (now) await page.clock.setFixedTime(now);
  const opened: OpenedPage = { page, console: [], pageErrors: [], apiCalls: [] };
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') opened.console.push(message.text());
  });
  page.on('pageerror', (error) => opened.pageErrors.push(String(error)));
  page.on('request', (request) => {
    if (request.url().includes('/api/v1/') && request.method() === 'GET') opened.apiCalls.push({ request, status: null, failure: null });
  });
  page.on('response', (response) => {
    const call = opened.apiCalls.find((candidate) => candidate.request === response.request());
    if (call) call.status = response.status();
  });
  page.on('requestfailed', (request) => {
    const call = opened.apiCalls.find((candidate) => candidate.request === request);
    if (call) call.failure = request.failure()?.errorText ?? 'failed';
  });
  await prepare?.(page);
  await page.goto(url);
  return opened;
}

/** Waits until the widget in `container` has left its loading state, and returns that state. */
export async function settledState(page: Page, container: string): Promise<string> {
  const widget = page.locator(`${container} .widget:not([data-state="loading"])`);
  await widget.waitFor();
  return (await widget.getAttribute('data-state')) ?? '';
}

export interface ContrastReport {
  lowest: number;
  text: string;
}

/** The lowest WCAG contrast ratio of any visible text in the container's shadow root, against the background it sits on. */
export function lowestContrast(page: Page, container: string): Promise<ContrastReport> {
  return page.evaluate((selector) => {
    const channel = (value: number) => {
      const unit = value / 255;
      return unit <= 0.03928 ? unit / 12.92 : ((unit + 0.055) / 1.055) ** 2.4;
    };
    const parse = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    const backgroundOf = (element: Element): number[] => {
      for (let current: Element | null = element; current; current = current.parentElement ?? (current.getRootNode() as ShadowRoot).host ?? null) {
        const rgba = parse(getComputedStyle(current).backgroundColor);
        if (rgba.length === 3 || (rgba[3] ?? 0) > 0) return rgba;
      }
      return [255, 255, 255];
    };
    const root = document.querySelector(selector)!.shadowRoot!;
    let report = { lowest: Infinity, text: '' };
    for (const element of root.querySelectorAll('*')) {
      const ownText = [...element.childNodes]
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent ?? '')
        .join('')
        .trim();
      if (!ownText || element.closest('.hidden') || element.localName === 'style') continue;
      const foreground = luminance(parse(getComputedStyle(element).color));
      const background = luminance(backgroundOf(element));
      const ratio = (Math.max(foreground, background) + 0.05) / (Math.min(foreground, background) + 0.05);
      if (ratio < report.lowest) report = { lowest: ratio, text: ownText };
    }
    return report;
  }, container);
}
