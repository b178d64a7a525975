import {
  CreateWebhookEndpointDocument,
  DeleteWebhookEndpointDocument,
  GetWebhookEndpointDocument,
  ListWebhookDeliveriesDocument,
  ListWebhookEndpointsDocument,
  RedeliverWebhookDeliveryDocument,
  RotateWebhookEndpointSecretDocument,
  UpdateWebhookEndpointDocument,
} from './__generated__/graphql.js';
import { listPage, pageArguments } from './lists.js';
import { runOperation } from './operation.js';
import type { RestRoute } from './routes.js';
import { bodyAsInput, snakeCaseKeys } from './shape.js';

const base = '/v1/webhook_endpoints';

export const webhookRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: base,
    async handle(request) {
      const { createWebhookEndpoint } = await runOperation(CreateWebhookEndpointDocument, { input: bodyAsInput(request.body) }, request.context);
      const { endpoint, secret } = createWebhookEndpoint;
      return { status: 201, body: snakeCaseKeys({ ...endpoint, secret }), headers: { location: `${base}/${endpoint.id}` } };
    },
  },
  {
    method: 'GET',
    path: base,
    async handle(request) {
      const { webhookEndpoints } = await runOperation(ListWebhookEndpointsDocument, pageArguments(request.query), request.context);
      return listPage(request.url, webhookEndpoints, snakeCaseKeys);
    },
  },
  {
    method: 'GET',
    path: `${base}/:id`,
    async handle(request) {
      const { webhookEndpoint } = await runOperation(GetWebhookEndpointDocument, { id: request.params['id']! }, request.context);
      return { status: 200, body: snakeCaseKeys(webhookEndpoint), lastModified: new Date(webhookEndpoint.updatedAt) };
    },
  },
  {
    method: 'PATCH',
    path: `${base}/:id`,
    async handle(request) {
      const { updateWebhookEndpoint } = await runOperation(
        UpdateWebhookEndpointDocument,
        { id: request.params['id']!, input: bodyAsInput(request.body) },
        request.context,
      );
      return { status: 200, body: snakeCaseKeys(updateWebhookEndpoint) };
    },
  },
  {
    method: 'DELETE',
    path: `${base}/:id`,
    async handle(request) {
      const { deleteWebhookEndpoint } = await runOperation(DeleteWebhookEndpointDocument, { id: request.params['id']! }, request.context);
      return { status: 200, body: { id: deleteWebhookEndpoint.id, deleted: true } };
    },
  },
  {
    method: 'POST',
    path: `${base}/:id/rotate_secret`,
    async handle(request) {
      const { rotateWebhookEndpointSecret } = await runOperation(RotateWebhookEndpointSecretDocument, { id: request.params['id']! }, request.context);
      const { endpoint, secret } = rotateWebhookEndpointSecret;
      return { status: 200, body: snakeCaseKeys({ ...endpoint, secret }) };
    },
  },
  {
    method: 'GET',
    path: `${base}/:id/deliveries`,
    async handle(request) {
      const { webhookEndpoint } = await runOperation(
        ListWebhookDeliveriesDocument,
        { id: request.params['id']!, ...pageArguments(request.query) },
        request.context,
      );
      return listPage(request.url, webhookEndpoint.deliveries, snakeCaseKeys);
    },
  },
  {
    method: 'POST',
    path: `${base}/:id/deliveries/:delivery_id/redeliver`,
    async handle(request) {
      const { redeliverWebhookDelivery } = await runOperation(
        RedeliverWebhookDeliveryDocument,
        { endpointId: request.params['id']!, deliveryId: request.params['delivery_id']! },
        request.context,
      );
      return { status: 202, body: snakeCaseKeys(redeliverWebhookDelivery) };
    },
  },
];
