import type { WebhookEndpoint } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { upperCaseEnum } from '../../graphql/enums.js';
import { inputRules } from '../../graphql/input-coercion.js';
import { createEndpoint, deleteEndpoint, findOwnEndpoint, newEndpointInput, redeliver, rotateEndpointSecret, updateEndpoint } from './endpoints.js';
import { sendTestEvent } from './test-event.js';
import { isTestEventBody } from './worker.js';
import { keysetPage, refuseCursorNamingNothing } from '../../graphql/keyset-pages.js';

const DeliveryStatus = upperCaseEnum('WebhookDeliveryStatus', ['pending', 'succeeded', 'failed']);

builder.prismaObject('WebhookAttempt', {
  fields: (t) => ({
    attemptNumber: t.exposeInt('attemptNumber'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    durationMs: t.exposeInt('durationMs', { nullable: true }),
    responseStatus: t.exposeInt('responseStatus', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
  }),
});

builder.prismaObject('WebhookDelivery', {
  fields: (t) => ({
    id: t.exposeID('id'),
    eventId: t.exposeID('messageId', { description: 'The msg_… id: the webhook-id header of every attempt.' }),
    event: t.exposeString('eventType'),
    test: t.boolean({
      description: 'A test event sent by sendTestWebhook (its body carries `"test": true`), not an event of the log.',
      select: { payload: true },
      resolve: (delivery) => isTestEventBody(delivery.payload),
    }),
    status: t.expose('status', { type: DeliveryStatus }),
    attemptCount: t.exposeInt('attemptCount'),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (delivery) => (delivery.status === 'pending' ? delivery.nextAttemptAt : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    attempts: t.relation('attempts', { query: { orderBy: { attemptNumber: 'asc' } } }),
  }),
});

builder.prismaNode('WebhookEndpoint', {
  id: { field: 'id' },
  authScopes: { scope: 'webhooks:manage' },
  nullable: true,
  findUnique: (id, context) => ({ id, accountId: context.principal?.accountId ?? '', deletedAt: null }),
  fields: (t) => ({
    url: t.exposeString('url'),
    description: t.exposeString('description', { nullable: true }),
    events: t.exposeStringList('events', { description: 'Event kinds delivered; empty means all.' }),
    enabled: t.exposeBoolean('enabled'),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deliveries: t.prismaConnection({
      type: 'WebhookDelivery',
      cursor: 'id',
      resolve: async (query, endpoint, _args, context) =>
        refuseCursorNamingNothing(
          await context.prisma.webhookDelivery.findMany({ ...query, where: { endpointId: endpoint.id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
          query,
          async (id) => (await context.prisma.webhookDelivery.count({ where: { id, endpointId: endpoint.id } })) > 0,
        ),
    }),
  }),
});

const EndpointWithSecret = builder.objectRef<{ endpoint: WebhookEndpoint; secret: string }>('WebhookEndpointWithSecret').implement({
  description: 'An endpoint and its signing secret, shown only on creation and rotation.',
  fields: (t) => ({
    endpoint: t.prismaField({ type: 'WebhookEndpoint', resolve: (_query, parent) => parent.endpoint }),
    secret: t.exposeString('secret'),
  }),
});

const CreateInput = builder.inputType('CreateWebhookEndpointInput', {
  extensions: inputRules(() => newEndpointInput),
  fields: (t) => ({
    url: t.string({ required: true }),
    events: t.stringList(),
    description: t.string(),
  }),
});

const UpdateInput = builder.inputType('UpdateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string(),
    events: t.stringList(),
    description: t.string(),
    enabled: t.boolean(),
  }),
});

const SendTestInput = builder.inputType('SendTestWebhookInput', {
  fields: (t) => ({
    event: t.string({ description: 'The kind of event to send; booking.created when left out.' }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.prismaConnection({
    type: 'WebhookEndpoint',
    cursor: 'id',
    authScopes: { scope: 'webhooks:manage' },
    resolve: async (query, _root, _args, context) => {
      // Ordered by id, the cursor's own key: an endpoint deleted since its page was sent (its row stays) still marks where the next begins.
      const { page, past } = await keysetPage(
        query,
        async (id) => (await context.prisma.webhookEndpoint.findFirst({ where: { id, accountId: context.principal!.accountId }, select: { id: true } }))?.id,
      );
      return context.prisma.webhookEndpoint.findMany({
        ...page,
        where: { accountId: context.principal!.accountId, deletedAt: null, ...(past ? { id: past } : {}) },
        orderBy: { id: 'asc' },
      });
    },
  }),
  webhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    authScopes: { scope: 'webhooks:manage' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const endpoint = await findOwnEndpoint(context, String(args.id));
      return context.prisma.webhookEndpoint.findUniqueOrThrow({ ...query, where: { id: endpoint.id } });
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: EndpointWithSecret,
    authScopes: { scope: 'webhooks:manage' },
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_root, args, context) => createEndpoint(context, args.input),
  }),
  updateWebhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    authScopes: { scope: 'webhooks:manage' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateInput, required: true }) },
    resolve: (_query, _root, args, context) => updateEndpoint(context, String(args.id), args.input),
  }),
  deleteWebhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    authScopes: { scope: 'webhooks:manage' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, context) => deleteEndpoint(context, String(args.id)),
  }),
  rotateWebhookEndpointSecret: t.field({
    type: EndpointWithSecret,
    authScopes: { scope: 'webhooks:manage' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => rotateEndpointSecret(context, String(args.id)),
  }),
  redeliverWebhookDelivery: t.prismaField({
    type: 'WebhookDelivery',
    authScopes: { scope: 'webhooks:manage' },
    description:
      'Sends a succeeded or failed delivery again, with the same webhook-id, after any delivery being sent to its endpoint; delivery_pending while it is still being attempted, endpoint_disabled while its endpoint is disabled.',
    args: { endpointId: t.arg.id({ required: true }), deliveryId: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, context) => redeliver(context, String(args.endpointId), String(args.deliveryId)),
  }),
  sendTestWebhook: t.prismaField({
    type: 'WebhookDelivery',
    authScopes: { scope: 'webhooks:manage' },
    description:
      'Sends the endpoint a signed example event marked `"test": true`, now, once (refused with endpoint_busy while a delivery to the endpoint is being sent); it never enters the booking log.',
    args: { endpointId: t.arg.id({ required: true }), input: t.arg({ type: SendTestInput }) },
    resolve: async (query, _root, args, context) => {
      const delivery = await sendTestEvent(context, String(args.endpointId), args.input);
      return context.prisma.webhookDelivery.findUniqueOrThrow({ ...query, where: { id: delivery.id } });
    },
  }),
}));
