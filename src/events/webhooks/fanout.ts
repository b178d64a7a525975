import type { Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../shared/ids.js';
import type { WebhookEventType } from '../kinds.js';

/** One message to the account's endpoints, signed and sent with `messageId` as its webhook-id. */
export interface WebhookMessage {
  accountId: string;
  messageId: string;
  type: WebhookEventType;
  /** Position among the account's messages: each endpoint receives them in this order. */
  seq: bigint;
  payload: Prisma.InputJsonValue;
  createdAt: Date;
  /** The traceparent of the span that recorded the message, which each delivery's span links to. */
  traceParent?: string | null;
}

/**
 * A position for a message that is not a booking event, drawn from the booking log's own sequence,
 * so alerts and booking events reach each endpoint in the order they happened.
 */
export async function nextMessagePosition(tx: Prisma.TransactionClient): Promise<bigint> {
  const [row] = await tx.$queryRaw<{ seq: bigint }[]>`SELECT nextval(pg_get_serial_sequence('booking_events', 'seq')) AS seq`;
  return row!.seq;
}

/**
 * Queues one delivery per enabled endpoint of the account that takes this kind of message. Run it
 * in the transaction that records the message, so a message and its deliveries exist together or
 * not at all.
 */
export async function enqueueDeliveries(tx: Prisma.TransactionClient, message: WebhookMessage): Promise<void> {
  const endpoints = await tx.webhookEndpoint.findMany({
    where: {
      accountId: message.accountId,
      enabled: true,
      deletedAt: null,
      OR: [{ events: { isEmpty: true } }, { events: { has: message.type } }],
    },
    select: { id: true },
  });
  if (endpoints.length === 0) return;
  await tx.webhookDelivery.createMany({
    data: endpoints.map((endpoint) => ({
      id: newId('webhookDelivery'),
      endpointId: endpoint.id,
      messageId: message.messageId,
      eventType: message.type,
      seq: message.seq,
      payload: message.payload,
      traceParent: message.traceParent ?? null,
      nextAttemptAt: message.createdAt,
      createdAt: message.createdAt,
    })),
  });
}
