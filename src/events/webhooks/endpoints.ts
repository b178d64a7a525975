import { z } from 'zod';
import type { WebhookDelivery, WebhookEndpoint } from '../../generated/prisma/client.js';
import type { Context } from '../../graphql/context.js';
import { hasScope, insufficientScope } from '../../access/principal.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { parseInput } from '../../shared/validation.js';
import { logEventTypes, webhookEventTypes, type WebhookEventType } from '../kinds.js';
import { assertPublicDestination, parseWebhookUrl } from './destination.js';
import { newWebhookSecret } from './signing.js';

/** How long the secret replaced by a rotation keeps signing beside the new one. */
const rotationOverlapMs = 24 * 3_600_000;

/** Endpoints (not deleted) one account may have. */
export const maxEndpointsPerAccount = 16;

const eventList = z.array(z.enum(webhookEventTypes), { error: `events lists event kinds: ${webhookEventTypes.join(', ')}.` }).max(webhookEventTypes.length);
const description = z.string().max(500, 'description is at most 500 characters.');
const url = z.string({ error: 'url is required.' }).superRefine((text, context) => {
  try {
    parseWebhookUrl(text);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

/** The rules of a new endpoint's fields (CreateWebhookEndpointInput's, so one answer names type and rule errors together). */
export const newEndpointInput = z.object({ url, events: eventList.optional(), description: description.optional() });
const updateSchema = z
  .object({ url: url.optional(), events: eventList.optional(), description: description.optional(), enabled: z.boolean().optional() })
  .refine((input) => Object.values(input).some((value) => value !== undefined), { message: 'Send at least one of url, events, description, enabled.' });

function accountOf(context: Context): string {
  return context.principal!.accountId;
}

/**
 * Booking events and waitlist offers carry customers' names and emails, so an endpoint that
 * receives them (an empty list means every kind) may only be aimed by a key that could read bookings itself.
 */
export function requireScopeForEvents(context: Context, events: readonly WebhookEventType[]): void {
  const receivesBookings = events.length === 0 || events.some((kind) => (logEventTypes as readonly string[]).includes(kind));
  if (receivesBookings && !hasScope(context.principal, 'bookings:read')) {
    throw insufficientScope(
      ['bookings:read'],
      'An endpoint that receives booking events or waitlist offers (events empty, or any booking.* kind, or waitlist.offered) carries customer data.',
    );
  }
}

async function checkedUrl(context: Context, text: string): Promise<string> {
  const parsed = parseWebhookUrl(text);
  await assertPublicDestination(parsed, context.services.config.WEBHOOK_ALLOW_PRIVATE);
  return parsed.toString();
}

export async function findOwnEndpoint(context: Context, id: string): Promise<WebhookEndpoint> {
  const endpoint = await context.prisma.webhookEndpoint.findFirst({ where: { id, accountId: accountOf(context), deletedAt: null } });
  if (!endpoint) throw notFound('webhook endpoint', id);
  return endpoint;
}

/** Creates an endpoint; the returned secret is the only time it is shown. */
export async function createEndpoint(context: Context, rawInput: unknown): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const input = parseInput(newEndpointInput, rawInput);
  const events = input.events ?? [];
  requireScopeForEvents(context, events);
  const url = await checkedUrl(context, input.url);
  const accountId = accountOf(context);
  const secret = newWebhookSecret();
  const endpoint = await context.prisma.$transaction(async (tx) => {
    // The account row's lock makes concurrent creations take turns, so two cannot both take the last place.
    // NO KEY: the inserts that reference the row (every booking of the account) do not hold it back.
    await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`;
    const existing = await tx.webhookEndpoint.count({ where: { accountId, deletedAt: null } });
    if (existing >= maxEndpointsPerAccount) {
      throw new AppError('too_many_endpoints', `An account has at most ${maxEndpointsPerAccount} webhook endpoints; delete one before creating another.`);
    }
    return tx.webhookEndpoint.create({
      data: {
        id: newId('webhookEndpoint'),
        accountId,
        url,
        events,
        description: input.description ?? null,
        secret: context.services.secrets.seal(secret),
      },
    });
  });
  return { endpoint, secret };
}

export async function updateEndpoint(context: Context, id: string, rawInput: unknown): Promise<WebhookEndpoint> {
  const input = parseInput(updateSchema, rawInput);
  const current = await findOwnEndpoint(context, id);
  // Aiming an endpoint that receives booking events elsewhere is as good as registering one.
  if (input.events !== undefined || input.url !== undefined) requireScopeForEvents(context, input.events ?? (current.events as WebhookEventType[]));
  const url = input.url !== undefined ? await checkedUrl(context, input.url) : undefined;
  return context.prisma.$transaction(async (tx) => {
    if (input.enabled === true && !current.enabled) {
      // Enabled again, the receiver is taken to be mended: what waited is sent now, not after the retry wait its last failure set.
      const now = context.services.clock();
      await tx.webhookDelivery.updateMany({ where: { endpointId: id, status: 'pending', nextAttemptAt: { gt: now } }, data: { nextAttemptAt: now } });
    }
    return tx.webhookEndpoint.update({
      where: { id },
      data: {
        ...(url !== undefined ? { url } : {}),
        ...(input.events !== undefined ? { events: input.events } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        // Re-enabling clears the failure streak that disabled it.
        ...(input.enabled !== undefined ? { enabled: input.enabled, ...(input.enabled ? { failingSince: null, disabledReason: null } : {}) } : {}),
      },
    });
  });
}

/** Deletes an endpoint: it stops receiving, and its pending deliveries are abandoned. */
export async function deleteEndpoint(context: Context, id: string): Promise<WebhookEndpoint> {
  await findOwnEndpoint(context, id);
  const now = context.services.clock();
  return context.prisma.$transaction(async (tx) => {
    await tx.webhookDelivery.updateMany({ where: { endpointId: id, status: 'pending' }, data: { status: 'failed', completedAt: now } });
    return tx.webhookEndpoint.update({ where: { id }, data: { deletedAt: now, enabled: false } });
  });
}

/** A new secret; the old one keeps signing beside it for 24 h. One old secret at a time: a second rotation within them drops the first at once. */
export async function rotateEndpointSecret(context: Context, id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const current = await findOwnEndpoint(context, id);
  const secret = newWebhookSecret();
  const endpoint = await context.prisma.webhookEndpoint.update({
    where: { id },
    data: {
      secret: context.services.secrets.seal(secret),
      previousSecret: current.secret,
      previousSecretExpiresAt: new Date(context.services.clock().getTime() + rotationOverlapMs),
    },
  });
  return { endpoint, secret };
}

/** Sends a delivery again now, with the same webhook-id, whatever its earlier outcome. */
export async function redeliver(context: Context, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
  const endpoint = await findOwnEndpoint(context, endpointId);
  const delivery = await context.prisma.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId } });
  if (!delivery) throw notFound('delivery', deliveryId);
  const stillAttempted = () => new AppError('delivery_pending', 'This delivery is still being attempted; redeliver it once it has succeeded or failed.');
  // Disabled first: a disabled endpoint's pending delivery is not being attempted, it waits for the endpoint to be enabled.
  if (!endpoint.enabled) throw endpointDisabled(endpoint);
  if (delivery.status === 'pending') throw stillAttempted();
  // Only while the endpoint is enabled, checked in the same statement (the worker may disable it meanwhile):
  // a disabled endpoint receives nothing, so the delivery would wait, pending, until it is enabled.
  const { count } = await context.prisma.webhookDelivery.updateMany({
    where: { id: deliveryId, status: { not: 'pending' }, endpoint: { enabled: true, deletedAt: null } },
    data: { status: 'pending', nextAttemptAt: context.services.clock(), lockedUntil: null, completedAt: null },
  });
  if (count === 0) {
    const current = await findOwnEndpoint(context, endpointId);
    throw current.enabled ? stillAttempted() : endpointDisabled(current);
  }
  return context.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
}

function endpointDisabled(endpoint: WebhookEndpoint): AppError {
  return new AppError('endpoint_disabled', `This endpoint is disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}; enable it (enabled: true) to redeliver.`);
}
