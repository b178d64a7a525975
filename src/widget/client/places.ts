/**
 * The places left for a party per event: the availability of the services of the event's
 * attraction, kept live over the page's one GraphQL WebSocket (live.ts). On every (re)connection each
 * service's slots are read once (a query, which also tells an empty window from one not read yet),
 * then followed by an availabilityChanged subscription, whose first answers bring the state back.
 */
import { isObject, numberOrNull, stringOr, type Json } from './api.js';
import type { WidgetEvent } from './events.js';
import { dateTimeFormat } from './format.js';
import type { LiveConnection } from './live.js';
import type { PlacesWindow } from './settings.js';

export type Badge =
  | { kind: 'checking' }
  | { kind: 'open' | 'few'; startTime: Date; remaining: number; party: number }
  | { kind: 'sold-out' }
  /** No slot at all in the window (the attraction is not open then): not the same news as full. */
  | { kind: 'closed'; tonight: boolean }
  /** The places cannot be read (refused, or no answer in time). */
  | { kind: 'unavailable' };

interface Slot {
  start: number;
  capacity: number;
  remaining: number;
}

/** An event's window, and the services whose slots count for it (none read: null). */
interface Watched {
  event: WidgetEvent;
  from: number;
  to: number;
  serviceIds: string[] | null;
}

/** The most services one attraction shows places for, and one socket follows (the server's limit per socket). */
const servicesPerAttraction = 10;
const servicesPerSocket = 100;
const answerWithinMs = 15_000;
const morningHour = 6;

const servicesQuery = `query WidgetServices($ids: [ID!]!) {
  nodes(ids: $ids) { ... on Attraction { id services(first: ${servicesPerAttraction}) { edges { node { id timezone } } pageInfo { hasNextPage } } } }
}`;
const slotFields = 'startTime capacity remaining';
/**
 * The slots of several services in one operation (each operation counts against the token's
 * per-visitor rate limit), one alias per service, as many as the server's cost limit takes.
 */
function availabilityQuery(count: number): string {
  const indexes = Array.from({ length: count }, (_, index) => index);
  const variables = indexes.map((index) => `$id${index}: ID!, $start${index}: Date!, $end${index}: Date!`);
  const fields = indexes.map((index) => `s${index}: service(id: $id${index}) { availability(startDate: $start${index}, endDate: $end${index}) { ${slotFields} } }`);
  return `query WidgetAvailability(${variables.join(', ')}) { ${fields.join(' ')} }`;
}
/** The server's query cost limit, with room to spare, and what one service's slots weigh: a field per slot a day can hold (minSlotMinutes 5, plus a DST hour). */
const costPerQuery = 50_000;
const slotsPerDay = 24 * 12 + 24;
const dayMs = 86_400_000;
const costOf = (range: { startDate: string; endDate: string }) => 2 + ((Date.parse(range.endDate) - Date.parse(range.startDate)) / dayMs + 1) * slotsPerDay * 3;

const availabilitySubscription = `subscription WidgetPlaces($serviceId: ID!, $startDate: Date!, $endDate: Date!) {
  availabilityChanged(serviceId: $serviceId, startDate: $startDate, endDate: $endDate) { ${slotFields} }
}`;

/** The wall-clock reading of `time` in `timeZone`, as if it were UTC. */
function wallClock(time: number, timeZone: string): Date {
  const parts = dateTimeFormat(timeZone, {
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(time);
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)?.value);
  return new Date(Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second')));
}

/** The instant the wall clock of `timeZone` reads `wall` (a reading as if UTC), for a reading the clocks do not skip. */
function instantOf(wall: number, timeZone: string): number {
  const offsetAt = (time: number) => wallClock(time, timeZone).getTime() - time;
  // The offset at the reading taken as UTC can be the other side of a clock change: the second pass reads it where the answer is.
  const guess = wall - offsetAt(wall);
  return wall - offsetAt(guess);
}

/** "Tonight" in a time zone: from now until the next 06:00 there. */
export function tonight(now: number, timeZone: string): { from: number; to: number } {
  const local = wallClock(now, timeZone);
  const morning = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + (local.getUTCHours() < morningHour ? 0 : 1), morningHour);
  return { from: now, to: instantOf(morning, timeZone) };
}

const localDate = (time: number, timeZone: string) => wallClock(time, timeZone).toISOString().slice(0, 10);

/**
 * The soonest slot of the window still to start with room for the party; sold out when none has,
 * closed when the window has no slot at all. Few left: that slot has at most the party's places, or
 * a fifth of its capacity, left.
 */
function badgeOf(slots: Iterable<Slot>, party: number, from: number, to: number, now: number, tonight: boolean): Badge {
  let best: Slot | undefined;
  let open = false;
  for (const slot of slots) {
    if (slot.start < from || slot.start >= to) continue;
    open = true;
    if (slot.start < now || slot.remaining < party) continue;
    if (!best || slot.start < best.start || (slot.start === best.start && slot.remaining > best.remaining)) best = slot;
  }
  if (!best) return open ? { kind: 'sold-out' } : { kind: 'closed', tonight };
  const few = best.remaining <= Math.max(party, Math.ceil(best.capacity / 5));
  return { kind: few ? 'few' : 'open', startTime: new Date(best.start), remaining: best.remaining, party };
}

function slotOf(record: unknown): Slot | null {
  if (!isObject(record)) return null;
  const start = Date.parse(stringOr(record['startTime']));
  const capacity = numberOrNull(record['capacity']);
  const remaining = numberOrNull(record['remaining']);
  return Number.isNaN(start) || capacity === null || remaining === null ? null : { start, capacity, remaining };
}

export interface Places {
  stop(): void;
}

/**
 * Follows the places of `events` for `party`; `show(event, badge)` is called with each event's
 * badge whenever it changes. Events whose attraction has no service get none.
 */
export function followPlaces(
  connection: LiveConnection,
  events: WidgetEvent[],
  party: number,
  window: PlacesWindow,
  show: (event: WidgetEvent, badge: Badge | null) => void,
  warn: (message: string) => void,
): Places {
  const now = Date.now();
  const watched: Watched[] = events.map((event) => ({
    event,
    ...(window === 'tonight' ? tonight(now, event.timezone) : { from: window.from.getTime(), to: window.to.getTime() }),
    serviceIds: null,
  }));
  const slotsOf = new Map<string, Map<number, Slot>>();
  /** Each service's local days to follow, in its own time zone. */
  const ranges = new Map<string, { startDate: string; endDate: string }>();
  const failed = new Set<string>();
  const shown = new Map<WidgetEvent, string>();
  let servicesFound = false;
  let stops: (() => void)[] = [];

  function repaint(): void {
    for (const { event, from, to, serviceIds } of watched) {
      if (!serviceIds) continue;
      const badge: Badge | null =
        serviceIds.length === 0
          ? null
          : serviceIds.some((id) => failed.has(id))
            ? { kind: 'unavailable' }
            : serviceIds.every((id) => slotsOf.has(id))
              ? badgeOf(
                  serviceIds.flatMap((id) => [...slotsOf.get(id)!.values()]),
                  party,
                  from,
                  to,
                  Date.now(),
                  window === 'tonight',
                )
              : { kind: 'checking' };
      const key = JSON.stringify(badge);
      if (shown.get(event) === key) continue;
      shown.set(event, key);
      show(event, badge);
    }
  }

  function unavailable(serviceIds: Iterable<string>): void {
    for (const id of serviceIds) failed.add(id);
    repaint();
  }

  /** Reads the services of the events' attractions (once), and works out each one's range of days. */
  function findServices(): void {
    const attractionIds = [...new Set(watched.map(({ event }) => event.attractionId).filter(Boolean))];
    const stop = connection.start(
      servicesQuery,
      { ids: attractionIds },
      {
        next(data) {
          const found = new Map<string, { id: string; timezone: string }[]>();
          for (const node of Array.isArray(data['nodes']) ? data['nodes'] : []) {
            if (!isObject(node) || !isObject(node['services'])) continue;
            const { edges, pageInfo } = node['services'];
            if (isObject(pageInfo) && pageInfo['hasNextPage'] === true) {
              warn(`attraction ${stringOr(node['id'])} has more than ${servicesPerAttraction} services; its places are not shown.`);
              continue;
            }
            const services = (Array.isArray(edges) ? edges : []).map((edge: unknown) => (isObject(edge) && isObject(edge['node']) ? edge['node'] : {}));
            found.set(
              stringOr(node['id']),
              services.map((service: Json) => ({ id: stringOr(service['id']), timezone: stringOr(service['timezone'], 'UTC') })),
            );
          }
          placeServices(found);
        },
        // Already logged; the next connection asks again.
        error: () => undefined,
      },
      answerWithinMs,
    );
    stops.push(stop);
  }

  function placeServices(found: Map<string, { id: string; timezone: string }[]>): void {
    servicesFound = true;
    const followed = new Set<string>();
    for (const item of watched) {
      const services = found.get(item.event.attractionId) ?? [];
      const unseen = services.filter((service) => !followed.has(service.id));
      if (followed.size + unseen.length > servicesPerSocket) {
        warn(`places are shown for the services of at most ${servicesPerSocket} events' attractions; "${item.event.title}" has none shown.`);
        item.serviceIds = [];
        continue;
      }
      item.serviceIds = services.map((service) => service.id);
      for (const service of services) {
        followed.add(service.id);
        const range = ranges.get(service.id);
        const startDate = localDate(item.from, service.timezone);
        const endDate = localDate(item.to - 1, service.timezone);
        ranges.set(service.id, {
          startDate: range && range.startDate < startDate ? range.startDate : startDate,
          endDate: range && range.endDate > endDate ? range.endDate : endDate,
        });
      }
    }
    repaint();
    followEach();
  }

  /** Per service: its slots read once, then each change; again on every reconnection. */
  function followEach(): void {
    let batch: string[] = [];
    let cost = 0;
    for (const [serviceId, range] of ranges) {
      if (failed.has(serviceId)) continue;
      if (batch.length > 0 && cost + costOf(range) > costPerQuery) {
        readThenFollow(batch);
        batch = [];
        cost = 0;
      }
      batch.push(serviceId);
      cost += costOf(range);
    }
    if (batch.length > 0) readThenFollow(batch);
  }

  function readThenFollow(serviceIds: string[]): void {
    const variables = Object.fromEntries(
      serviceIds.flatMap((serviceId, index) => {
        const { startDate, endDate } = ranges.get(serviceId)!;
        return [
          [`id${index}`, serviceId],
          [`start${index}`, startDate],
          [`end${index}`, endDate],
        ];
      }),
    );
    const stopQuery = connection.start(
      availabilityQuery(serviceIds.length),
      variables,
      {
        next(data) {
          serviceIds.forEach((serviceId, index) => {
            const service = data[`s${index}`];
            const availability = isObject(service) ? service['availability'] : null;
            const slots = (Array.isArray(availability) ? availability : []).map(slotOf).filter((slot): slot is Slot => slot !== null);
            slotsOf.set(serviceId, new Map(slots.map((slot) => [slot.start, slot])));
          });
          repaint();
        },
        error: () => unavailable(serviceIds),
        // Subscribed once read, so every change after the read reaches the page.
        complete: () => {
          for (const serviceId of serviceIds) {
            const subscription = { serviceId, ...ranges.get(serviceId)! };
            stops.push(connection.start(availabilitySubscription, subscription, { next: (data) => upsert(serviceId, data), error: () => unavailable([serviceId]) }));
          }
        },
      },
      answerWithinMs,
    );
    stops.push(stopQuery);
  }

  function upsert(serviceId: string, data: Json): void {
    const slot = slotOf(data['availabilityChanged']);
    const slots = slotsOf.get(serviceId);
    if (!slot || !slots) return;
    slots.set(slot.start, slot);
    repaint();
  }

  const stopOpen = connection.onOpen(() => {
    // The socket's operations ended with the last one: start over, from what is already known.
    stops = [];
    failed.clear();
    if (!servicesFound) findServices();
    else followEach();
  });
  const stopRefused = connection.onRefused(() => unavailable(ranges.keys()));

  return {
    stop() {
      stopOpen();
      stopRefused();
      for (const stop of stops) stop();
    },
  };
}
