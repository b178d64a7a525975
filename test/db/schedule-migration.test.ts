import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openPristinePglite } from '../support/database.js';
import { defaultMigrationsDir } from '../../src/db/migrations-folder.js';
import { applyMigrations } from '../../src/db/migrator.js';

const migration = '20261124004952_service_schedules';
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

it('gives rows written before schedules existed their defaults: places per slot, end times, party sizes, zones, no opening hours', async () => {
  // The migrations before this one, applied to a database that then gets rows in the old shape.
  const before = await mkdtemp(join(tmpdir(), 'hallowgate-before-schedules-'));
  cleanups.push(() => rm(before, { recursive: true, force: true }));
  for (const entry of await readdir(defaultMigrationsDir)) {
    if (entry < migration) await cp(join(defaultMigrationsDir, entry), join(before, entry), { recursive: true });
  }
  const database = await openPristinePglite();
  cleanups.push(() => database.close());
  await applyMigrations(database, before);
  const pglite = database.pglite!;
  await pglite.exec(`
    INSERT INTO accounts (id, name) VALUES ('acct_1', 'Old');
    INSERT INTO attractions (id, name, description, city, city_key, region, updated_at) VALUES
      ('att_1', 'Old House', '…', 'Chicago', 'chicago', 'IL', now()), ('att_2', 'No Events', '…', 'Nowhere', 'nowhere', 'XX', now());
    INSERT INTO events (id, attraction_id, title, description, city, city_key, region, venue, address, latitude, longitude,
                        starts_at, ends_at, timezone, price_min, price_max, url, updated_at)
      VALUES ('ev_1', 'att_1', 'Night', '…', 'Chicago', 'chicago', 'IL', 'Hall', '1 Main St', 41.8, -87.6,
              '2026-10-31T00:00:00Z', '2026-10-31T03:00:00Z', 'America/Chicago', 10, 20, 'https://x.example', now());
    INSERT INTO services (id, name, attraction_id, duration_minutes, capacity, updated_at) VALUES
      ('svc_1', 'Timed entry 19:00 – Old House', 'att_1', 45, 10, now()), ('svc_2', 'Walk', 'att_2', 30, 5, now());
    INSERT INTO bookings (id, account_id, service_id, start_time, customer_name, customer_email, updated_at)
      VALUES ('bk_1', 'acct_1', 'svc_1', '2026-12-01T01:00:00Z', 'Ada', 'ada@example.com', now());
    INSERT INTO booking_slots (service_id, start_time, confirmed_count) VALUES ('svc_1', '2026-12-01T01:00:00Z', 1);
    INSERT INTO idempotency_keys (account_id, key, request_hash, booking_id, created_booking, expires_at)
      VALUES ('acct_1', 'k1', 'h', 'bk_1', '{"id":"bk_1","serviceId":"svc_1","startTime":"2026-12-01T00:30:00.000Z"}', now() + interval '1 day');
  `);

  // This one, and the ones after it, which keep what it made.
  expect((await applyMigrations(database))[0]).toBe(migration);
  const { prisma } = database;
  expect(await prisma.booking.findUniqueOrThrow({ where: { id: 'bk_1' } })).toMatchObject({ endTime: new Date('2026-12-01T01:45:00Z'), partySize: 1 });
  expect(await prisma.bookingSlot.findMany()).toEqual([{ serviceId: 'svc_1', startTime: new Date('2026-12-01T01:00:00Z'), placesTaken: 1, holds: [] }]);
  const services = await prisma.service.findMany({ orderBy: { id: 'asc' } });
  expect(services.map((service) => [service.timezone, service.slotMinutes, service.openingHours])).toEqual([
    ['America/Chicago', 45, []],
    ['UTC', 30, []],
  ]);
  expect(services[0]!.seasonEnd.getTime()).toBeGreaterThan(services[0]!.seasonStart.getTime());
  // The stored first answer ends one duration after the start it recorded, whatever the booking did since.
  expect((await prisma.idempotencyKey.findFirstOrThrow()).createdBooking).toMatchObject({ endTime: '2026-12-01T01:15:00.000Z', partySize: 1 });
});
