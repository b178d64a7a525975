import { createServer, type AddressInfo, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createAnnouncements, type Announcements } from '../../src/events/bus.js';
import { requireService } from '../support/services.js';

const redisUrl = await requireService('redis');

/**
 * Returns once everything published before has reached this instance's subscribers. In memory that is
 * at once; through Redis it is a round trip later, and a marker published on another account and
 * received shows it (Redis keeps one connection's messages in order).
 */
async function settle(announcements: Announcements, viaRedis: boolean) {
  if (!viaRedis) return;
  const marker = `acc_marker_${randomUUID()}`;
  const markers = announcements.bookingEvents.subscribe(marker)[Symbol.asyncIterator]();
  // Subscribing through Redis is itself a round trip: publish until the marker arrives.
  const arrived = markers.next();
  let seen = false;
  void arrived.then(() => (seen = true));
  while (!seen) {
    announcements.bookingEvents.publish(marker, { eventId: 'msg_marker', seq: '1' });
    await Promise.race([arrived, new Promise((resolve) => setTimeout(resolve, 20))]);
  }
  await markers.return?.();
}

describe.each([
  ['in memory', undefined],
  ['through Redis', redisUrl],
])('booking-event notices %s', (name, url) => {
  it.skipIf(name === 'through Redis' && !url)('reach a subscriber from the moment it subscribes, newest first when several wait', async () => {
    const announcements = createAnnouncements({ redisUrl: url });
    try {
      const accountId = `acc_${randomUUID()}`;
      const notices = announcements.bookingEvents.subscribe(accountId)[Symbol.asyncIterator]();
      await settle(announcements, url !== undefined);
      // Published before the first next(): a stream subscribes, reads the log, then waits.
      announcements.bookingEvents.publish(accountId, { eventId: 'msg_1', seq: '1' });
      announcements.bookingEvents.publish(accountId, { eventId: 'msg_3', seq: '3' });
      announcements.bookingEvents.publish(accountId, { eventId: 'msg_2', seq: '2' });
      await settle(announcements, url !== undefined);
      // One notice for the three: the newest position, enough to read the log past the last event sent.
      expect(await notices.next()).toEqual({ done: false, value: { eventId: 'msg_3', seq: '3' } });

      const waiting = notices.next();
      announcements.bookingEvents.publish(accountId, { eventId: 'msg_4', seq: '4' });
      expect(await waiting).toEqual({ done: false, value: { eventId: 'msg_4', seq: '4' } });

      const pending = notices.next();
      await notices.return?.();
      expect(await pending).toEqual({ done: true, value: undefined });
      announcements.bookingEvents.publish(accountId, { eventId: 'msg_5', seq: '5' });
      expect(await notices.next()).toEqual({ done: true, value: undefined });
    } finally {
      await announcements.close();
    }
  });
});

describe('closing', () => {
  it('before Redis answered a subscription leaves no unhandled rejection behind', async () => {
    // A hung Redis: it accepts the connection and reads, but answers neither the ready check nor SUBSCRIBE.
    const connections = new Set<Socket>();
    const hung = createServer((socket) => {
      connections.add(socket);
      socket.on('close', () => connections.delete(socket));
      socket.resume();
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const announcements = createAnnouncements({ redisUrl: `redis://127.0.0.1:${(hung.address() as AddressInfo).port}` });
      const revoked = announcements.revokedCredentials.subscribe()[Symbol.asyncIterator]();
      const next = revoked.next();
      await vi.waitFor(() => expect(connections.size).toBe(2));
      await announcements.close();
      await revoked.return?.();
      await next;
      // The clients' sockets are closed, and so their waiting commands were failed ("Connection is closed").
      await vi.waitFor(() => expect(connections.size).toBe(0));
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
      hung.close();
    }
  });
});
