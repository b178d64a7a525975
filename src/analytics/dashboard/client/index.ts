import uPlot from 'uplot';
import { ApiError, graphql, type RateLimitState } from './api.js';
import { startFeed, type FeedEvent, type FeedStatus } from './feed.js';

/**
 * The dashboard: usage charts, the rate-limit state, recent alerts and a live feed of booking events
 * for one API key. The key lives in this closure only: never in storage, a cookie or the URL.
 */

interface Bucket {
  start: string;
  requests: number;
  errors: number;
  averageLatencyMs: number;
}
interface RouteUsage {
  route: string;
  requests: number;
  errors: number;
  averageLatencyMs: number;
}
interface Alert {
  id: string;
  metric: string;
  threshold: number;
  value: number;
  windowStart: string;
}
interface Overview {
  viewer: {
    accountId: string;
    key: { id: string; name: string | null; plan: string } | null;
    usage: { buckets: Bucket[]; routes: RouteUsage[] };
    usageAlerts: Alert[];
  };
  bookingEvents: { edges: { node: FeedEvent }[] };
}

const overviewQuery = `query Dashboard($from: DateTime!, $to: DateTime!, $granularity: UsageGranularity!) {
  viewer {
    accountId
    key { id name plan }
    usage(from: $from, to: $to, granularity: $granularity) {
      buckets { start requests errors averageLatencyMs }
      routes { route requests errors averageLatencyMs }
    }
    usageAlerts(first: 10) { id metric threshold value windowStart }
  }
  bookingEvents(last: 10) { edges { node { id event created data } } }
}`;

const latestEventsQuery = `query LatestBookingEvents { bookingEvents(last: 50) { edges { node { id event created data } } } }`;
type LatestEvents = Pick<Overview, 'bookingEvents'>;

const ranges = { hour: 3_600_000, day: 86_400_000 } as const;
const refreshMs = 15_000;
const feedLength = 50;

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const time = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function setText(id: string, text: string) {
  element(id).textContent = text;
}

function listItems(listId: string, items: HTMLElement[], empty: string) {
  const list = element(listId);
  if (items.length === 0) {
    const none = document.createElement('li');
    none.className = 'empty';
    none.textContent = empty;
    list.replaceChildren(none);
  } else {
    list.replaceChildren(...items);
  }
}

function item(text: string, className?: string): HTMLLIElement {
  const entry = document.createElement('li');
  entry.textContent = text;
  if (className) entry.className = className;
  return entry;
}

function showRateLimit(state: RateLimitState) {
  if (state.limit === null) {
    setText('rate-limit', 'No per-minute limit applies to this key right now.');
    return;
  }
  const used = state.limit - (state.remaining ?? state.limit);
  const resetsIn = state.reset === null ? '' : `, resets in ${Math.max(0, Math.round(state.reset - Date.now() / 1000))} s`;
  setText('rate-limit', `${used.toLocaleString()} of ${state.limit.toLocaleString()} requests used this minute (${(state.remaining ?? 0).toLocaleString()} left${resetsIn}).`);
  const meter = element<HTMLMeterElement>('rate-meter');
  meter.max = state.limit;
  meter.value = used;
  meter.hidden = false;
}

function showAlerts(alerts: Alert[]) {
  const describe = (alert: Alert) =>
    alert.metric === 'DAILY_REQUESTS'
      ? `${alert.value.toLocaleString()} requests on the day (threshold ${alert.threshold.toLocaleString()})`
      : `${alert.metric.toLowerCase().replace('_', ' ')} ${(alert.value * 100).toFixed(1)} % (threshold ${(alert.threshold * 100).toFixed(0)} %)`;
  listItems(
    'alerts',
    alerts.map((alert) => item(`${time(alert.windowStart)}: ${describe(alert)}`)),
    'No alerts have fired.',
  );
}

function showRoutes(routes: RouteUsage[]) {
  const rows = routes.map((route) => {
    const row = document.createElement('tr');
    for (const value of [route.route, route.requests.toLocaleString(), route.errors.toLocaleString(), `${route.averageLatencyMs.toFixed(1)} ms`]) {
      const cell = document.createElement('td');
      cell.textContent = value;
      row.append(cell);
    }
    return row;
  });
  element('routes').replaceChildren(...rows);
}

let chart: uPlot | undefined;
const chartHeight = 240;

function showUsage(buckets: Bucket[], granularity: string) {
  const data: uPlot.AlignedData = [buckets.map((bucket) => Date.parse(bucket.start) / 1000), buckets.map((bucket) => bucket.requests), buckets.map((bucket) => bucket.errors)];
  const total = buckets.reduce((sum, bucket) => sum + bucket.requests, 0);
  const container = element('usage-chart');
  container.setAttribute(
    'aria-label',
    `Requests per ${granularity}: ${total.toLocaleString()} in the range, ${buckets.reduce((sum, bucket) => sum + bucket.errors, 0).toLocaleString()} errors.`,
  );
  container.dataset['points'] = String(buckets.length);
  container.dataset['total'] = String(total);
  if (chart) {
    chart.setData(data);
    return;
  }
  chart = new uPlot(
    {
      width: Math.max(280, container.clientWidth),
      height: chartHeight,
      series: [{}, { label: 'Requests', stroke: '#c2410c', width: 2, fill: 'rgba(234, 88, 12, 0.12)' }, { label: 'Errors', stroke: '#7c3aed', width: 2 }],
      axes: [{}, { label: 'requests' }],
      scales: { x: { time: true } },
    },
    data,
    container,
  );
}

/** What a line says after its time: a booking's change and status, or whom a waitlist offer is for and until when its hold lasts. */
function describeEvent({ event, data }: FeedEvent): string {
  const starts = `starts ${time(data.start_time)}`;
  if (event === 'waitlist.offered' && data.offer) {
    const party = data.party_size === undefined ? '' : ` (party of ${data.party_size})`;
    return `${event} ${data.id}, offer to ${data.customer?.name ?? 'a waitlisted customer'}${party}: ${data.offer.hold_id} until ${time(data.offer.expires_at)}, ${starts}`;
  }
  const who = data.customer?.name ? ` for ${data.customer.name}` : '';
  return `${event} ${data.id}${who}, ${data.status}, ${starts}`;
}

function feedEntry(event: FeedEvent): HTMLLIElement {
  const entry = item(`${time(event.created)}: ${describeEvent(event)}`, event.event.replace('.', '-'));
  entry.dataset['eventId'] = event.id;
  return entry;
}

function startDashboard(key: string) {
  let granularity: 'MINUTE' | 'HOUR' = 'MINUTE';
  let range: keyof typeof ranges = 'hour';
  let feed: { stop(): void } | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const shown = new Set<string>();
  // Ends this session's listeners at sign-out or a refused key, so a new sign-in starts clean.
  const session = new AbortController();

  const addToFeed = (event: FeedEvent, live: boolean) => {
    if (shown.has(event.id)) return;
    shown.add(event.id);
    const list = element('feed');
    list.querySelector('.empty')?.remove();
    list.prepend(feedEntry(event));
    if (live) list.firstElementChild?.classList.add('new');
    while (list.children.length > feedLength) list.lastElementChild?.remove();
  };
  const feedStatus = (status: FeedStatus) => setText('feed-status', status === 'live' ? 'Live' : 'Reconnecting…');

  async function refresh(first: boolean) {
    const to = new Date();
    const from = new Date(to.getTime() - ranges[range]);
    try {
      const { data, rateLimit } = await graphql<Overview>(key, overviewQuery, { from: from.toISOString(), to: to.toISOString(), granularity });
      setText('error', '');
      // Shown before drawing: the chart takes the width of its (visible) container.
      element('login').hidden = true;
      element('dashboard').hidden = false;
      setText('who', `Account ${data.viewer.accountId}, key ${data.viewer.key?.id ?? 'widget token'} (${data.viewer.key?.plan.toLowerCase() ?? ''} plan)`);
      showUsage(data.viewer.usage.buckets, granularity.toLowerCase());
      showRoutes(data.viewer.usage.routes);
      showAlerts(data.viewer.usageAlerts);
      showRateLimit(rateLimit);
      if (first) {
        const recent = data.bookingEvents.edges.map((edge) => edge.node);
        if (recent.length === 0) listItems('feed', [], 'No booking events yet.');
        for (const event of recent) addToFeed(event, false);
        feed = startFeed({
          key,
          after: recent.at(-1)?.id ?? null,
          onEvent: (event) => addToFeed(event, true),
          onStatus: feedStatus,
          latest: async () => (await graphql<LatestEvents>(key, latestEventsQuery)).data.bookingEvents.edges.map((edge) => edge.node),
        });
      }
      return true;
    } catch (error) {
      const message = error instanceof ApiError ? error.message : 'Something went wrong.';
      setText(
        first ? 'login-error' : 'error',
        error instanceof ApiError && error.code === 'insufficient_scope' ? 'This key needs the analytics:read and bookings:read scopes.' : message,
      );
      return false;
    }
  }

  const signOut = () => {
    session.abort();
    feed?.stop();
    clearInterval(timer);
    chart?.destroy();
    chart = undefined;
    element('dashboard').hidden = true;
    element('login').hidden = false;
    element<HTMLInputElement>('key').focus();
  };

  element<HTMLFormElement>('controls').addEventListener(
    'change',
    () => {
      granularity = element<HTMLInputElement>('granularity-hour').checked ? 'HOUR' : 'MINUTE';
      range = element<HTMLSelectElement>('range').value === 'day' ? 'day' : 'hour';
      void refresh(false);
    },
    { signal: session.signal },
  );
  element('sign-out').addEventListener('click', signOut, { signal: session.signal });

  window.addEventListener('resize', () => chart?.setSize({ width: Math.max(280, element('usage-chart').clientWidth), height: chartHeight }), { signal: session.signal });

  void refresh(true).then((signedIn) => {
    if (!signedIn) return session.abort();
    timer = setInterval(() => void refresh(false), refreshMs);
  });
}

element<HTMLFormElement>('login').addEventListener('submit', (submit) => {
  submit.preventDefault();
  const input = element<HTMLInputElement>('key');
  const key = input.value.trim();
  // Cleared from the form at once: the key lives on only in the dashboard's closure.
  input.value = '';
  setText('login-error', '');
  if (!/^(key|wt)_\w+/.test(key)) {
    setText('login-error', 'Paste an API key: key_….sk_…');
    return;
  }
  startDashboard(key);
});
