import { readFileSync } from 'node:fs';
import { projectPath } from '../shared/project-root.js';
import {
  AdminCreateAccountDocument,
  WithdrawWaitlistEntryDocument,
  GetWaitlistEntryDocument,
  ListWaitlistEntriesDocument,
  CreateWaitlistEntryDocument,
  ReleaseHoldDocument,
  GetHoldDocument,
  CreateHoldDocument,
  AdminCreateApiKeyDocument,
  AdminCreateServiceDocument,
  AdminCreateWidgetTokenDocument,
  AdminListAccountsDocument,
  AdminListApiKeysDocument,
  AdminListWidgetTokensDocument,
  AdminRevokeApiKeyDocument,
  AdminRevokeWidgetTokenDocument,
  AdminRotateApiKeyDocument,
  AdminUpdateServiceDocument,
  AdminPlaceAttractionDocument,
  ApiKeyUsageDocument,
  CancelBookingDocument,
  CreateBookingDocument,
  CreateWebhookEndpointDocument,
  DeleteWebhookEndpointDocument,
  DirectoryAttractionDocument,
  DirectoryAttractionsDocument,
  DirectoryCategoriesDocument,
  DirectoryCategoryDocument,
  DirectoryEventDocument,
  DirectoryEventsDocument,
  GetBookingDocument,
  GetServiceDocument,
  GetWebhookEndpointDocument,
  ListBookingEventsDocument,
  ListBookingsDocument,
  ListServicesDocument,
  ListWebhookDeliveriesDocument,
  ListWebhookEndpointsDocument,
  RedeliverWebhookDeliveryDocument,
  RotateWebhookEndpointSecretDocument,
  SendTestWebhookDocument,
  ServiceAvailabilityChangesDocument,
  ServiceAvailabilityDocument,
  UpdateBookingDocument,
  UpdateWebhookEndpointDocument,
  ViewerUsageDocument,
} from './__generated__/graphql.js';
import type { DocumentRoute, OperationRoute, RestRoute } from './route.js';

/** The booking service, under /v1. */
const bookingRoutes: OperationRoute[] = [
  {
    method: 'POST',
    path: '/v1/bookings',
    operation: CreateBookingDocument,
    body: 'input',
    headers: { 'idempotency-key': 'idempotencyKey' },
    answer: 'createBooking.booking',
    status: 201,
    location: true,
    flags: { 'idempotent-replayed': 'createBooking.replayed' },
  },
  { method: 'GET', path: '/v1/bookings', operation: ListBookingsDocument, answer: 'bookings', lastModified: 'bookingsLastModified' },
  { method: 'GET', path: '/v1/bookings/:id', operation: GetBookingDocument, answer: 'booking', lastModified: 'booking.updated_at' },
  { method: 'PATCH', path: '/v1/bookings/:id', operation: UpdateBookingDocument, body: 'input', headers: { 'if-match': 'version' }, answer: 'updateBooking' },
  { method: 'DELETE', path: '/v1/bookings/:id', operation: CancelBookingDocument, body: 'input', headers: { 'if-match': 'version' }, answer: 'cancelBooking' },
  { method: 'GET', path: '/v1/services', operation: ListServicesDocument, answer: 'services', cacheSeconds: 60 },
  { method: 'GET', path: '/v1/services/:id', operation: GetServiceDocument, answer: 'service', cacheSeconds: 60 },
  {
    method: 'GET',
    path: '/v1/services/:id/availability',
    operation: ServiceAvailabilityDocument,
    answer: 'service',
    eventStream: { operation: ServiceAvailabilityChangesDocument, answer: 'availabilityChanged' },
  },
  {
    method: 'POST',
    path: '/v1/holds',
    operation: CreateHoldDocument,
    body: 'input',
    headers: { 'idempotency-key': 'idempotencyKey' },
    answer: 'createHold',
    status: 201,
    location: true,
  },
  { method: 'GET', path: '/v1/holds/:id', operation: GetHoldDocument, answer: 'hold' },
  { method: 'DELETE', path: '/v1/holds/:id', operation: ReleaseHoldDocument, answer: 'releaseHold' },
  {
    method: 'POST',
    path: '/v1/waitlist_entries',
    operation: CreateWaitlistEntryDocument,
    body: 'input',
    headers: { 'idempotency-key': 'idempotencyKey' },
    answer: 'createWaitlistEntry',
    status: 201,
    location: true,
  },
  { method: 'GET', path: '/v1/waitlist_entries', operation: ListWaitlistEntriesDocument, answer: 'waitlistEntries' },
  { method: 'GET', path: '/v1/waitlist_entries/:id', operation: GetWaitlistEntryDocument, answer: 'waitlistEntry' },
  { method: 'DELETE', path: '/v1/waitlist_entries/:id', operation: WithdrawWaitlistEntryDocument, answer: 'withdrawWaitlistEntry' },
  // Events never change, so the newest one listed dates the page.
  {
    method: 'GET',
    path: '/v1/booking_events',
    operation: ListBookingEventsDocument,
    parameters: { afterEvent: 'after' },
    answer: 'bookingEvents',
    lastModified: 'bookingEvents.created',
  },
];

const webhookRoutes: OperationRoute[] = [
  {
    method: 'POST',
    path: '/v1/webhook_endpoints',
    operation: CreateWebhookEndpointDocument,
    body: 'input',
    answer: 'createWebhookEndpoint',
    spread: 'endpoint',
    status: 201,
    location: true,
  },
  { method: 'GET', path: '/v1/webhook_endpoints', operation: ListWebhookEndpointsDocument, answer: 'webhookEndpoints' },
  {
    method: 'GET',
    path: '/v1/webhook_endpoints/:id',
    operation: GetWebhookEndpointDocument,
    answer: 'webhookEndpoint',
    lastModified: 'webhookEndpoint.updated_at',
  },
  { method: 'PATCH', path: '/v1/webhook_endpoints/:id', operation: UpdateWebhookEndpointDocument, body: 'input', answer: 'updateWebhookEndpoint' },
  {
    method: 'DELETE',
    path: '/v1/webhook_endpoints/:id',
    operation: DeleteWebhookEndpointDocument,
    answer: 'deleteWebhookEndpoint',
    constant: { deleted: true },
  },
  {
    method: 'POST',
    path: '/v1/webhook_endpoints/:id/rotate_secret',
    operation: RotateWebhookEndpointSecretDocument,
    answer: 'rotateWebhookEndpointSecret',
    spread: 'endpoint',
  },
  {
    method: 'GET',
    path: '/v1/webhook_endpoints/:id/deliveries',
    operation: ListWebhookDeliveriesDocument,
    answer: 'webhookEndpoint.deliveries',
  },
  {
    method: 'POST',
    path: '/v1/webhook_endpoints/:id/deliveries/:delivery_id/redeliver',
    operation: RedeliverWebhookDeliveryDocument,
    parameters: { endpointId: 'id' },
    answer: 'redeliverWebhookDelivery',
    status: 202,
  },
  {
    method: 'POST',
    path: '/v1/webhook_endpoints/:id/test',
    operation: SendTestWebhookDocument,
    parameters: { endpointId: 'id' },
    body: 'input',
    answer: 'sendTestWebhook',
    status: 202,
  },
];

const usageRoutes: OperationRoute[] = [
  { method: 'GET', path: '/v1/usage', operation: ViewerUsageDocument, answer: 'viewer.usage' },
  { method: 'GET', path: '/v1/admin/api_keys/:id/usage', operation: ApiKeyUsageDocument, parameters: { keyId: 'id' }, answer: 'apiKeyUsage' },
];

/** Operator routes: their fields ask for the admin scope. */
const adminRoutes: OperationRoute[] = [
  { method: 'POST', path: '/v1/admin/accounts', operation: AdminCreateAccountDocument, body: 'input', answer: 'createAccount', status: 201 },
  { method: 'GET', path: '/v1/admin/accounts', operation: AdminListAccountsDocument, answer: 'accounts' },
  {
    method: 'POST',
    path: '/v1/admin/api_keys',
    operation: AdminCreateApiKeyDocument,
    body: 'input',
    answer: 'createApiKey',
    spread: 'api_key',
    status: 201,
  },
  { method: 'GET', path: '/v1/admin/api_keys', operation: AdminListApiKeysDocument, answer: 'apiKeys' },
  { method: 'DELETE', path: '/v1/admin/api_keys/:id', operation: AdminRevokeApiKeyDocument, answer: 'revokeApiKey' },
  { method: 'POST', path: '/v1/admin/api_keys/:id/rotate', operation: AdminRotateApiKeyDocument, answer: 'rotateApiKey', spread: 'api_key' },
  {
    method: 'POST',
    path: '/v1/admin/widget_tokens',
    operation: AdminCreateWidgetTokenDocument,
    body: 'input',
    answer: 'createWidgetToken',
    status: 201,
  },
  { method: 'GET', path: '/v1/admin/widget_tokens', operation: AdminListWidgetTokensDocument, answer: 'widgetTokens' },
  { method: 'DELETE', path: '/v1/admin/widget_tokens/:id', operation: AdminRevokeWidgetTokenDocument, answer: 'revokeWidgetToken' },
  { method: 'POST', path: '/v1/admin/services', operation: AdminCreateServiceDocument, body: 'input', answer: 'createService', status: 201, location: '/v1/services' },
  { method: 'PATCH', path: '/v1/admin/services/:id', operation: AdminUpdateServiceDocument, body: 'input', answer: 'updateService' },
  { method: 'PATCH', path: '/v1/admin/attractions/:id', operation: AdminPlaceAttractionDocument, body: 'input', answer: 'placeAttraction' },
];

/**
 * The directory, under /api/v1: a record's answer is dated by its newest update (its own, its
 * relations'). A list is not: records leave it (moved, filtered out) without any date on it moving
 * forward, so its newest record's date could go back, and If-Modified-Since would answer 304 over
 * changed contents; its ETag revalidates it. A search with available_for follows places left, which
 * bookings and holds change: it is never kept over HTTP.
 */
const directoryRoutes: OperationRoute[] = (
  [
    { method: 'GET', path: '/api/v1/events', operation: DirectoryEventsDocument, answer: 'events', liveWith: 'available_for' },
    { method: 'GET', path: '/api/v1/events/:id', operation: DirectoryEventDocument, answer: 'event', lastModified: 'event._modified' },
    {
      method: 'GET',
      path: '/api/v1/attractions',
      operation: DirectoryAttractionsDocument,
      answer: 'attractions',
      liveWith: 'available_for',
    },
    { method: 'GET', path: '/api/v1/attractions/:id', operation: DirectoryAttractionDocument, answer: 'attraction', lastModified: 'attraction._modified' },
    { method: 'GET', path: '/api/v1/categories', operation: DirectoryCategoriesDocument, answer: 'categories' },
    {
      method: 'GET',
      path: '/api/v1/categories/:id_or_slug',
      operation: DirectoryCategoryDocument,
      answer: 'category',
      lastModified: 'category._modified',
    },
  ] satisfies OperationRoute[]
).map((route) => ({ ...route, cacheSeconds: 60 }));

/** The OpenAPI documents (npm run generate:openapi writes them). */
const documentRoutes: DocumentRoute[] = [
  { path: '/v1/openapi.json', name: 'v1' },
  { path: '/api/v1/openapi.json', name: 'api-v1' },
].map(({ path, name }) => {
  let generated: Record<string, unknown> | undefined;
  /** The last few origins' documents: Host varies little, but it is the client's to choose. */
  const byOrigin = new Map<string, unknown>();
  return {
    method: 'GET',
    path,
    cacheSeconds: 300,
    document(origin: string) {
      generated ??= JSON.parse(readFileSync(projectPath('openapi/dist', `${name}.json`), 'utf8')) as Record<string, unknown>;
      let document = byOrigin.get(origin);
      if (!document) {
        if (byOrigin.size >= 16) byOrigin.clear();
        // The generated servers name the default local address; clients are told the one they reached.
        document = { ...generated, servers: [{ url: origin, description: 'This server' }] };
        byOrigin.set(origin, document);
      }
      return document;
    },
  };
});

export const operationRoutes: OperationRoute[] = [...bookingRoutes, ...webhookRoutes, ...usageRoutes, ...adminRoutes, ...directoryRoutes];

export const restRoutes: RestRoute[] = [...operationRoutes, ...documentRoutes];
