import type { BookingEvent, Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../shared/ids.js';

/**
 * Queues one delivery per enabled endpoint of the account that takes this kind of event. It runs in
 * the transaction that logs the event, so an event and its deliveries exist together or not at all.
 */
export async function enqueueDeliveries(tx: Prisma.TransactionClient, event: BookingEvent): Promise<void> {
  const endpoints = await tx.webhookEndpoint.findMany({
    where: {
      accountId: event.accountId,
      enabled: true,
      deletedAt: null,
      OR: [{ events: { isEmpty: true } }, { events: { has: event.type } }],
    },
    select: { id: true },
  });
  if (endpoints.length === 0) return;
  await tx.webhookDelivery.createMany({
    data: endpoints.map((endpoint) => ({
      id: newId('webhookDelivery'),
      endpointId: endpoint.id,
      messageId: event.id,
      eventType: event.type,
      seq: event.seq,
      payload: event.payload as Prisma.InputJsonValue,
      nextAttemptAt: event.createdAt,
      createdAt: event.createdAt,
    })),
  });
}
