import { createHash } from 'node:crypto';
import type { Service } from '../generated/prisma/client.js';
import type { AvailabilityNotice } from '../events/bus.js';
import { noteStreamedId } from '../events/sse-resume.js';
import type { Context } from '../graphql/context.js';
import { invalidParameter, notFound } from '../shared/errors.js';
import { takingTurns } from '../shared/streams.js';
import { availabilityAt, availabilityOf, checkAvailabilityRange, nowOf, type AvailableSlot } from './availability.js';
import { dayMs, localDay } from './schedule.js';

/**
 * Live availability: the slots of a service and a range whose `remaining` changes, as the changes
 * commit. Every transaction that moves places in a service's slots (src/bookings/transaction.ts), and
 * every operator change of a service, announces the service on the bus; the ranges its subscribers
 * on this instance follow are then read again, together, and each subscriber sends the slots whose
 * `remaining` differs from the state it held. Resumption is
 * by state, not by position: a stream starts with every slot of the range that has not started, so
 * a client that reconnects has the current state, whatever it missed. Over SSE, the last slot of each
 * read carries an `id:` naming the state the client then holds (a digest of the range's slots); a
 * client that resumes with it as Last-Event-ID is sent nothing first when the state is still that one,
 * and every slot otherwise (markedCopy: one cut off within a change resumes with no id).
 */

/** The availability of a range as one read left it: its slots, the instant they were worked out at, and the id of that state. */
interface AvailabilityRead {
  slots: AvailableSlot[];
  now: number;
  stateId: string;
}

/** Ids of availability states: unlike booking events' msg_…, no log holds them; they are worked out again from the state. */
const stateIdPrefix = 'avl_';

function stateIdOf(serviceId: string, startDate: Date, endDate: Date, slots: AvailableSlot[]): string {
  // One update of the whole text: a call per slot costs more than the hashing.
  let text = `${serviceId} ${startDate.getTime()} ${endDate.getTime()}`;
  for (const slot of slots) text += ` ${slot.startTime.getTime()}:${slot.remaining}`;
  return `${stateIdPrefix}${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
}

/** A range of days, as a key: subscribers of one range share everything a notice makes them read. */
const rangeKeyOf = (startDate: Date, endDate: Date) => `${startDate.getTime()} ${endDate.getTime()}`;

interface FollowedRange {
  startDate: Date;
  endDate: Date;
  followers: number;
}

/** The ranges that the streams on this instance follow, by service: what one notice for the service is read for. */
const followedRanges = new Map<string, Map<string, FollowedRange>>();

/** Counts a stream among the followers of its service's range; the function it returns stops counting it. */
function follow(serviceId: string, startDate: Date, endDate: Date): () => void {
  let ranges = followedRanges.get(serviceId);
  if (!ranges) followedRanges.set(serviceId, (ranges = new Map()));
  const key = rangeKeyOf(startDate, endDate);
  const range = ranges.get(key) ?? { startDate, endDate, followers: 0 };
  ranges.set(key, range);
  range.followers++;
  return () => {
    if (--range.followers > 0) return;
    ranges.delete(key);
    if (ranges.size === 0) followedRanges.delete(serviceId);
  };
}

/**
 * Reads made for a notice, by range: every subscriber of a service on this instance receives the
 * same notice object, so every range followed then is read once per notice, begun after the notice
 * (so after its commit). They go when the notice does.
 */
const readsForNotice = new WeakMap<AvailabilityNotice, Promise<Map<string, AvailabilityRead>>>();

/** The most days ranges read together span: a read of a service's places covers at most twice an answer's. */
const sharedReadDays = 62;

async function findService(context: Context, serviceId: string): Promise<Service> {
  const service = await context.prisma.service.findUnique({ where: { id: serviceId } });
  if (!service) throw notFound('service', serviceId);
  return service;
}

/** The service as it is now (an operator may have changed its capacity or schedule) and its slots in the range. */
async function readAvailability(context: Context, serviceId: string, startDate: Date, endDate: Date): Promise<AvailabilityRead> {
  const service = await findService(context, serviceId);
  const execution = {};
  const slots = await availabilityOf(context, execution, service, startDate, endDate);
  return { slots, now: nowOf(context, execution).getTime(), stateId: stateIdOf(serviceId, startDate, endDate, slots) };
}

/** The index of the first of `slots` (oldest first) that starts on `day` or later in `zone`. */
function firstOnOrAfter(slots: readonly AvailableSlot[], day: number, zone: string): number {
  let low = 0;
  let high = slots.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (localDay(slots[middle]!.startTime, zone) < day) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The state of every range of the service followed on this instance, at one instant: the service
 * row once, then one read of slots and places for each set of ranges that overlap or touch (at
 * most 62 days in all), sliced for each range. Subscribers follow the days ahead, so most services
 * are read once a notice, however many ranges their subscribers follow.
 */
async function readFollowedRanges(context: Context, serviceId: string): Promise<Map<string, AvailabilityRead>> {
  const followed = [...(followedRanges.get(serviceId)?.entries() ?? [])].sort(([, a], [, b]) => a.startDate.getTime() - b.startDate.getTime());
  const service = await findService(context, serviceId);
  const now = nowOf(context, {}).getTime();
  const reads = new Map<string, AvailabilityRead>();
  for (let first = 0; first < followed.length;) {
    const startDate = followed[first]![1].startDate;
    let endDate = followed[first]![1].endDate;
    let end = first + 1;
    for (; end < followed.length; end++) {
      const next = followed[end]![1];
      const lastDay = Math.max(endDate.getTime(), next.endDate.getTime());
      if (next.startDate.getTime() > endDate.getTime() + dayMs || lastDay - startDate.getTime() >= sharedReadDays * dayMs) break;
      endDate = new Date(lastDay);
    }
    const slots = await availabilityAt(context, service, startDate, endDate, now);
    for (const [key, range] of followed.slice(first, end)) {
      const inRange = slots.slice(
        firstOnOrAfter(slots, range.startDate.getTime() / dayMs, service.timezone),
        firstOnOrAfter(slots, range.endDate.getTime() / dayMs + 1, service.timezone),
      );
      reads.set(key, { slots: inRange, now, stateId: stateIdOf(serviceId, range.startDate, range.endDate, inRange) });
    }
    first = end;
  }
  return reads;
}

/** What a notice tells a stream of the range to send: the range's read shared by every stream of the instance, or its own when it began after the notice. */
async function readForNotice(context: Context, notice: AvailabilityNotice, startDate: Date, endDate: Date): Promise<AvailabilityRead> {
  let reads = readsForNotice.get(notice);
  if (!reads) readsForNotice.set(notice, (reads = readFollowedRanges(context, notice.serviceId)));
  return (await reads).get(rangeKeyOf(startDate, endDate)) ?? readAvailability(context, notice.serviceId, startDate, endDate);
}

/**
 * What a stream that holds `previous` is sent for `read`: its slots whose `remaining` differs (by
 * start time). A slot `previous` listed that the read no longer lists, though it has not started,
 * left the schedule (an operator changed it): it is sent once more with no places left. One that
 * started is forgotten silently.
 */
function changesBetween(previous: AvailabilityRead, read: AvailabilityRead): AvailableSlot[] {
  const changed: AvailableSlot[] = [];
  const gone: AvailableSlot[] = [];
  // Both lists are oldest first: one walk through the two.
  let index = 0;
  for (const slot of read.slots) {
    const start = slot.startTime.getTime();
    while (index < previous.slots.length && previous.slots[index]!.startTime.getTime() < start) gone.push(previous.slots[index++]!);
    const before = index < previous.slots.length && previous.slots[index]!.startTime.getTime() === start ? previous.slots[index++] : undefined;
    if (before?.remaining !== slot.remaining) changed.push(slot);
  }
  gone.push(...previous.slots.slice(index));
  for (const slot of gone) if (slot.startTime.getTime() > read.now && slot.remaining !== 0) changed.push({ ...slot, remaining: 0 });
  return changed;
}

/**
 * changesBetween, worked out once for the streams that held the same state (its id stands for the
 * places left in each slot, all a change compares): by the read, then that state's id.
 */
const changesOfRead = new WeakMap<AvailabilityRead, Map<string, AvailableSlot[]>>();

function sharedChanges(previous: AvailabilityRead, read: AvailabilityRead): AvailableSlot[] {
  let byPrevious = changesOfRead.get(read);
  if (!byPrevious) changesOfRead.set(read, (byPrevious = new Map()));
  let changes = byPrevious.get(previous.stateId);
  if (!changes) byPrevious.set(previous.stateId, (changes = changesBetween(previous, read)));
  return changes;
}

/**
 * Copies of a read's slots that carry an SSE id: the last slot of a change carries the state's id,
 * and the first of a change of several an empty one, which makes EventSource forget the id it had,
 * so that a client cut off among them resumes with none and is sent every slot. One copy per slot and
 * role, so subscribers sent the same change still share one result (useSubscriptionFanOut); the
 * slots between carry no id and are the read's own.
 */
const markedCopies = new WeakMap<AvailableSlot, { first?: AvailableSlot; last?: AvailableSlot }>();

function markedCopy(slot: AvailableSlot, role: 'first' | 'last'): AvailableSlot {
  let copies = markedCopies.get(slot);
  if (!copies) markedCopies.set(slot, (copies = {}));
  return (copies[role] ??= { ...slot });
}

/** The changes of one read, for this subscriber, each noted with its SSE id (or none) just before it goes. */
function* sentWithStateId(context: Context, changes: AvailableSlot[], stateId: string): Generator<AvailableSlot> {
  for (const [index, slot] of changes.entries()) {
    const role = index === changes.length - 1 ? 'last' : index === 0 ? 'first' : undefined;
    noteStreamedId(context, role === 'last' ? stateId : role === 'first' ? '' : undefined);
    yield role ? markedCopy(slot, role) : slot;
  }
}

async function* availabilityStream(context: Context, notices: AsyncIterator<AvailabilityNotice>, serviceId: string, startDate: Date, endDate: Date): AsyncGenerator<AvailableSlot> {
  const unfollow = follow(serviceId, startDate, endDate);
  try {
    let held = await readAvailability(context, serviceId, startDate, endDate);
    // Resumed at the state it holds: nothing to send until the next change.
    if (context.lastEventId !== held.stateId) yield* takingTurns(sentWithStateId(context, held.slots, held.stateId));
    for (;;) {
      const next = await notices.next();
      if (next.done) return;
      const read = await readForNotice(context, next.value, startDate, endDate);
      const changes = sharedChanges(held, read);
      held = read;
      yield* takingTurns(sentWithStateId(context, changes, read.stateId));
    }
  } finally {
    unfollow();
    await notices.return?.();
  }
}

/**
 * The live availability of a service's range: its current state, then each change. The range and the
 * service are checked before the stream starts, so a bad range or an unknown service is an error answer.
 */
export async function availabilityChanges(context: Context, serviceId: string, startDate: Date, endDate: Date): Promise<AsyncIterableIterator<AvailableSlot>> {
  checkAvailabilityRange(startDate, endDate);
  const service = await findService(context, serviceId);
  // A day's slots start within two days of its midnight: two days on, none of them can change, and a stream would hold its place for nothing.
  if (endDate.getTime() / dayMs + 2 <= localDay(context.services.clock(), service.timezone)) {
    throw invalidParameter('endDate', 'endDate is past: every slot of the range has started, so none can change; watch from today.', 'in_past');
  }
  // Joined before the first read: a change committed after it is announced to this stream.
  const notices = context.services.availabilityBus.subscribe(serviceId)[Symbol.asyncIterator]();
  const slots = availabilityStream(context, notices, serviceId, startDate, endDate);
  const stream: AsyncIterableIterator<AvailableSlot> = {
    [Symbol.asyncIterator]: () => stream,
    next: () => slots.next(),
    // Leaving the bus first answers a next() waiting for a notice: the stream ends now, not at the service's next change.
    async return() {
      await notices.return?.();
      return slots.return(undefined);
    },
  };
  return stream;
}
