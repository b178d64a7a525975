import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../access/processes.js';
import { openEventsDatabase } from '../events/cluster.js';
import { futureSlot } from '../support/http.js';
import { requireService } from '../support/services.js';
import { openService } from '../support/bookable.js';

const postgresUrl = await requireService('postgres');

/** kill -9 while bookings are being written: every booking a client was told about survives, with its event. */
describe.skipIf(!postgresUrl)('booking writes across a crash', () => {
  let cluster: Awaited<ReturnType<typeof openEventsDatabase>>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    cluster = await openEventsDatabase(postgresUrl!);
  });
  afterAll(async () => {
    await server?.stop();
    await cluster?.database.close();
  });

  it('keeps every acknowledged booking and its booking.created event, and no event without its booking', async () => {
    server = await startServerProcess(cluster.env);
    const serviceId = await openService(cluster.database.prisma);
    const acknowledged: string[] = [];
    let next = 0;
    const crashed = server.process;
    const exited = new Promise((resolve) => crashed.once('exit', resolve));

    // 16 clients book one after another until the server dies under them.
    const client = async () => {
      while (crashed.exitCode === null && crashed.signalCode === null) {
        const day = next++;
        try {
          const response = await fetch(`${server!.url}/v1/bookings`, {
            method: 'POST',
            headers: { authorization: `Bearer ${cluster.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              service_id: serviceId,
              start_time: futureSlot(100 + (day % 300), 8 + Math.floor(day / 300)),
              customer: { name: `Crash ${day}`, email: 'crash@example.com' },
            }),
          });
          if (response.status === 201) acknowledged.push(((await response.json()) as { id: string }).id);
        } catch {
          // The server died under this request: only acknowledged bookings are checked.
        }
        if (acknowledged.length === 60 && crashed.signalCode === null) crashed.kill('SIGKILL');
      }
    };
    await Promise.all(Array.from({ length: 16 }, client));
    await exited;

    expect(acknowledged.length).toBeGreaterThanOrEqual(60);
    const { prisma } = cluster.database;
    const stored = await prisma.booking.findMany({ where: { id: { in: acknowledged } }, select: { id: true } });
    expect(stored).toHaveLength(acknowledged.length);
    const created = await prisma.bookingEvent.findMany({ where: { bookingId: { in: acknowledged }, type: 'booking.created' }, select: { bookingId: true } });
    expect(new Set(created.map((event) => event.bookingId))).toEqual(new Set(acknowledged));
    // What was in flight either committed whole (booking and event) or not at all.
    const [bookings, withEvent, events] = await Promise.all([
      prisma.booking.count(),
      prisma.booking.count({ where: { events: { some: { type: 'booking.created' } } } }),
      prisma.bookingEvent.count({ where: { type: 'booking.created' } }),
    ]);
    expect(withEvent).toBe(bookings);
    expect(events).toBe(bookings);
  }, 120_000);
});
