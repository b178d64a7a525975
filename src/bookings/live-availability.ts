import { createHash } from 'node:crypto';
import type { Service } from '../generated/prisma/client.js';
import type { AvailabilityNotice } from '../events/bus.js';
import { noteStreamedId } from '../events/sse-resume.js';
import type { Context } from '../graphql/context.js';
import { notFound } from '../shared/errors.js';
import { takingTurns } from '../shared/streams.js';
import { availabilityOf, checkAvailabilityRange, nowOf, type AvailableSlot } from './availability.js';

/**
 * Live availability: the slots of a service and a range whose `remaining` changes, as the changes
 * commit. Every transaction that moves places in a service's slots (src/bookings/transaction.ts), and
 * every operator change of a service, announces the service on the bus; each subscriber then reads
 * the range again and sends the slots whose `remaining` differs from what it last sent. Resumption is
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
  const digest = createHash('sha256').update(`${serviceId} ${startDate.getTime()} ${endDate.getTime()}`);
  for (const slot of slots) digest.update(` ${slot.startTime.getTime()}:${slot.remaining}`);
  return `${stateIdPrefix}${digest.digest('base64url').slice(0, 22)}`;
}

/**
 * Reads made for a notice, by range: every subscriber of a service on this instance receives the
 * same notice object, so those of one range share one read per notice, begun after the notice (so
 * after its commit). They go when the notice does.
 */
const readsForNotice = new WeakMap<AvailabilityNotice, Map<string, Promise<AvailabilityRead>>>();

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

function sharedRead(context: Context, notice: AvailabilityNotice, startDate: Date, endDate: Date): Promise<AvailabilityRead> {
  let reads = readsForNotice.get(notice);
  if (!reads) readsForNotice.set(notice, (reads = new Map()));
  const key = `${startDate.getTime()} ${endDate.getTime()}`;
  let read = reads.get(key);
  if (!read) reads.set(key, (read = readAvailability(context, notice.serviceId, startDate, endDate)));
  return read;
}

/**
 * The slots of `read` whose `remaining` differs from what `sent` holds (by start time), and `sent`
 * brought up to date. A slot sent before that the read no longer lists, though it has not started,
 * left the schedule (an operator changed it): it is sent once more with no places left. One that
 * started is forgotten silently.
 */
function changesSince(sent: Map<number, AvailableSlot>, read: AvailabilityRead): AvailableSlot[] {
  const changed: AvailableSlot[] = [];
  const listed = new Set<number>();
  for (const slot of read.slots) {
    const start = slot.startTime.getTime();
    listed.add(start);
    if (sent.get(start)?.remaining !== slot.remaining) {
      changed.push(slot);
      sent.set(start, slot);
    }
  }
  for (const [start, slot] of sent) {
    if (listed.has(start)) continue;
    sent.delete(start);
    if (start > read.now && slot.remaining !== 0) changed.push({ ...slot, remaining: 0 });
  }
  return changed;
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
  try {
    const sent = new Map<number, AvailableSlot>();
    const first = await readAvailability(context, serviceId, startDate, endDate);
    const initial = changesSince(sent, first);
    // Resumed at the state it holds: nothing to send until the next change.
    if (context.lastEventId !== first.stateId) yield* takingTurns(sentWithStateId(context, initial, first.stateId));
    for (;;) {
      const next = await notices.next();
      if (next.done) return;
      const read = await sharedRead(context, next.value, startDate, endDate);
      yield* takingTurns(sentWithStateId(context, changesSince(sent, read), read.stateId));
    }
  } finally {
    await notices.return?.();
  }
}

/**
 * The live availability of a service's range: its current state, then each change. The range and the
 * service are checked before the stream starts, so a bad range or an unknown service is an error answer.
 */
export async function availabilityChanges(context: Context, serviceId: string, startDate: Date, endDate: Date): Promise<AsyncIterableIterator<AvailableSlot>> {
  checkAvailabilityRange(startDate, endDate);
  await findService(context, serviceId);
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
