import type { Context as TraceContext } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Principal } from '../access/principal.js';
import type { Clock } from '../shared/clock.js';
import type { ReadRows } from '../db/connection.js';
import type { DirectReads } from '../db/root-reads.js';
import type { AvailabilityBus, BookingEventBus, RevokedCredentialBus, UsageAlertBus } from '../events/bus.js';
import type { Config } from '../config.js';
import type { SecretBox } from '../shared/secrets.js';
import type { DataVersionReads } from '../response-cache/response-cache.js';

/** Long-lived services every request can reach. Built once in src/app.ts. */
export interface AppServices {
  prisma: PrismaClient;
  /** Reads that run on every request (the response cache's data versions), without Prisma's per-query work. */
  readRows: ReadRows;
  /** Prisma's reads for root fields, through the driver where they translate (src/db/sql-reads/). */
  directReads: DirectReads;
  logger: Logger;
  clock: Clock;
  bookingEventBus: BookingEventBus;
  /** Services whose availability changed, announced to every instance (src/bookings/live-availability.ts). */
  availabilityBus: AvailabilityBus;
  /** Revoked and rotated credentials, announced to every instance (see src/access/revocation.ts). */
  revokedCredentials: RevokedCredentialBus;
  config: Config;
  /** Encrypts and decrypts the secrets stored in the database (SECRETS_KEY). */
  secrets: SecretBox;
  /** Fired usage alerts, for the usageAlerts subscription; absent outside the server (CLI). */
  usageAlerts?: UsageAlertBus;
}

export interface Context {
  prisma: PrismaClient;
  principal: Principal | null;
  requestId: string;
  services: AppServices;
  /** An SSE client's Last-Event-ID: booking-event subscriptions without `after` resume after it. */
  lastEventId: string | null;
  /** The SSE `id:` of the payload a subscription is sending: its booking event's, an availability state's, or empty (forget the last). */
  streamedEventId?: string | undefined;
  /** That event's traceparent (booking_events.trace_parent), which the span of its sending links to. */
  streamedEventTraceParent?: string | null | undefined;
  /** The response cache's data versions read for this request: whichever of the HTTP layer, REST and Yoga asks first reads each. */
  dataVersionReads: DataVersionReads;
  /** The request's trace when its work runs outside the trace context (unsampled, src/tracing/http.ts). */
  requestTrace?: TraceContext | undefined;
}

export function createContext(
  services: AppServices,
  principal: Principal | null,
  requestId: string,
  lastEventId: string | null = null,
  dataVersionReads: DataVersionReads = new Map(),
  requestTrace?: TraceContext,
): Context {
  return { prisma: services.prisma, principal, requestId, services, lastEventId, dataVersionReads, requestTrace };
}
