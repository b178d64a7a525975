import { AlertMetric } from '../../generated/prisma/enums.js';
import type { WebhookEventType } from '../../events/kinds.js';
import type { ErrorCode } from '../../shared/errors.js';

/**
 * The hand-kept part of the OpenAPI documents: summaries, descriptions, tags, examples and the error
 * codes particular to a route. Everything else (paths, parameters, bodies, answers, statuses,
 * headers, scopes) is derived by generate.ts (with schemas.ts, operations.ts and responses.ts) from
 * the REST table, its operations and the schema.
 */

export type DocumentName = 'v1' | 'api-v1';

export interface RouteProse {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** What the success answer holds. */
  response: string;
  /** Descriptions of query, path and header parameters, by their REST name. */
  parameters?: Record<string, string>;
  /** Error codes this route answers besides the ones every route of its kind can, and when. */
  errors?: Partial<Record<ErrorCode, string>>;
  requestExample?: unknown;
}

export interface DocumentProse {
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  /** By `METHOD /path`, the path as the document writes it (`/v1/bookings/{id}`). */
  routes: Record<string, RouteProse>;
  /** Requests this server sends (OpenAPI `webhooks`), which no route answers. */
  webhooks?: Record<string, unknown>;
  /** Shapes and parameters of those requests that no operation gives. */
  schemas?: Record<string, Record<string, unknown>>;
  parameters?: Record<string, Record<string, unknown>>;
}

const timestamp = 'ISO 8601 in UTC with `Z` and seconds (`2027-10-31T19:00:00Z`); no other offset, and a real calendar date.';

export const sharedProse = {
  servers: [{ url: 'http://localhost:4000', description: 'Local server (npm start)' }],
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: '<KEY_ID>.<SECRET>',
    description: 'An API key, `Authorization: Bearer key_….sk_…`. Widget tokens (`wt_…`) may read the directory.',
  },
  headers: {
    ETag: 'Strong entity tag of the exact body.',
    'Last-Modified': 'Newest update time of the records in the answer.',
    'Cache-Control': '`private, max-age=…`: answers differ per credential.',
    Link: '`<…>; rel="next"` when there is a next page.',
    'Retry-After': 'Seconds to wait before trying again.',
    'X-RateLimit-Limit': 'Requests per minute allowed for the credential.',
    'X-RateLimit-Remaining': 'Requests left in the current one-minute window.',
    'X-RateLimit-Reset': 'Unix epoch seconds at which the current window ends.',
    'WWW-Authenticate': 'A Bearer challenge (RFC 6750) naming the error.',
    'Idempotent-Replayed': '`true` when the answer replays an earlier request with the same `Idempotency-Key`.',
  } as Record<string, string>,
  /** Descriptions by schema coordinate (`Type`, `Type.field`, or a component's name); the schema's own where absent. */
  descriptions: {
    DateTime: timestamp,
    Date: 'A calendar date, `YYYY-MM-DD`.',
    // Bookings
    BookingStatus: '`confirmed` → `cancelled` is the only transition; `cancelled` is final.',
    'CreateBookingInput.serviceId': 'A `svc_…` id; an unknown one gives 422 naming `service_id`.',
    'CreateBookingInput.startTime': 'A start time of the service: not in the past and at most 731 days ahead.',
    UpdateBookingInput: 'Any of the fields; the ones left out keep their values. A change of slot must find a free place there.',
    BookingEvent: 'One event of the log (a booking change, or a waitlist offer), the same body webhooks deliver.',
    'BookingEvent.data':
      "booking.*: the booking as it was after the change. `booking.updated` adds `previous_attributes` (the fields that changed, with their values before); `booking.cancelled` adds `cancellation` (`by`: the `key_…` id, or `operator`; `reason`: the client's, or null). waitlist.offered: the waitlist entry as offered, its `offer` holding the `hold_id` to book and its `expires_at`.",
    'CreateBookingInput.holdId':
      'A `hold_…` id of the account, instead of `service_id`, `start_time` and `party_size`: the booking takes its places; 409 `hold_expired` when it is no longer held.',
    'CreateHoldInput.expiresInSeconds': '60 to 1,800; 600 when left out.',
    'CreateWaitlistEntryInput.offerExpiresInSeconds': "How long an offer's hold lasts: 60 to 1,800; 600 when left out.",
    CancelBookingInput: 'Optional; the reason is carried by `booking.cancelled`.',
    // Operators
    Plan: 'Requests per minute: free 100, pro 1,000, business 10,000, enterprise 10,000 (and HMAC signing).',
    'ApiKey.scopes': '`admin` implies every other scope.',
    'ApiKey.allowedOrigins': 'Origins whose browser pages may call with this key (CORS). Requests from other origins get 403 `origin_not_allowed`.',
    'ApiKey.ipAllowlist': 'IPv4 and IPv6 addresses or CIDRs (IPv4 as four decimal numbers: `010.0.0.1` is refused); empty allows any address. Others get 403 `ip_not_allowed`.',
    'ApiKey.promo': "Unlimited until 2027-07-31 23:59:59 America/Chicago (2027-08-01T04:59:59Z), then the plan's limit.",
    'ApiKey.requireSignature': 'Unsigned requests get 401 `invalid_signature`.',
    AdminIssuedApiKey: 'A key with its secrets. `key` and `signing_secret` are shown only in this answer; only a hash is stored.',
    'IssuedApiKey.key': 'The whole credential, `<KEY_ID>.<SECRET>`, for `Authorization: Bearer …`.',
    'IssuedApiKey.signingSecret': 'HMAC signing secret (`hs_…`) where signing is on (enterprise keys), else null.',
    'CreateApiKeyInput.requireSignature': 'Only on the enterprise plan.',
    'CreateApiKeyInput.scopes': 'At least one; `admin` implies every other scope.',
    'WidgetToken.id': "The token itself (`wt_…`); it is public and goes into the widget's `token` option.",
    'WidgetToken.allowedOrigins': 'The only origins the token works from.',
    'CreateWidgetTokenInput.allowedOrigins': 'At least one: the only origins the token works from.',
    'CreateWidgetTokenInput.rateLimitPerMinute': '1 to 1,000,000; 600 when left out.',
    // Analytics
    UsageGranularity: 'Length of each bucket (UTC hours and days). A range may hold at most 1,500 buckets.',
    'RouteUsage.route': 'A REST route template (`GET /v1/bookings/:id`), `graphql:<operationName>` (`graphql:anonymous` without a name), or `unmatched`.',
    'UsageBucket.start': 'Start of the minute, hour or day.',
    // Webhooks
    'WebhookEndpoint.events': 'The kinds delivered; empty means all.',
    'WebhookEndpoint.enabled':
      '`false` after 5 days of failed deliveries, at once after a `410 Gone` answer (or when set so); `PATCH {"enabled": true}` re-enables it. While `false` nothing is sent: the deliveries queued before wait, `pending`, and are sent at once, in log order, when it is re-enabled.',
    'WebhookEndpoint.disabledReason': 'Why the service disabled the endpoint.',
    'WebhookEndpointWithSecret.secret': 'The Standard Webhooks signing secret (`whsec_` and 32 random bytes in base64). Shown only in this answer.',
    'CreateWebhookEndpointInput.url':
      '`https` (or `http`), without credentials, at most 2,048 characters. A host that does not resolve to a public address gives 422 (unless the server runs with `WEBHOOK_ALLOW_PRIVATE=1`), the same answer whether it does not resolve at all or resolves to a private, loopback or link-local address.',
    'CreateWebhookEndpointInput.events': 'Kinds to deliver; left out or empty means all.',
    'CreateWebhookEndpointInput.description': 'At most 500 characters.',
    UpdateWebhookEndpointInput: 'Any of the fields; the ones left out keep their values.',
    'UpdateWebhookEndpointInput.url': 'Checked as on creation.',
    'UpdateWebhookEndpointInput.enabled': '`true` also clears the failure streak that disabled the endpoint.',
    'WebhookAttempt.responseStatus': "The receiver's HTTP status; `null` when it gave none (timeout, refused connection).",
    'WebhookAttempt.error': 'Why no answer came, when none did.',
    WebhookDeliveryStatus: '`succeeded` after a 2xx; `failed` after the last retry (or when the endpoint was deleted).',
    'WebhookDelivery.nextAttemptAt': 'When `pending`: the next attempt.',
    'WebhookDelivery.test': '`true` for a test event sent by `POST /v1/webhook_endpoints/{id}/test`; its body carries `"test": true`.',
    'SendTestWebhookInput.event': 'The kind of event to send; `booking.created` when left out (or when there is no body).',
    // Directory
    Event: 'Every key but `id` may be left out by `fields`; `categories` and `images` appear only with `include`.',
    Attraction: 'Every key but `id` may be left out by `fields`; `events` and `categories` appear only with `include`.',
    Category: 'Every key but `id` may be left out by `fields`.',
    'Event.timezone': 'IANA time zone of the venue.',
    'Attraction.updatedAt': 'When the aggregated view last changed: an update of the attraction or of one of its events, or the start of an event (which moves `next_starts_at`).',
  } as Record<string, string>,
  /** Examples by schema coordinate. */
  examples: {
    'Booking.id': ['bk_3Jd9QkZp1Xc7Vb2Nm8LtRw'],
    'Booking.serviceId': ['svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc'],
    'Customer.name': ['Ada Lovelace'],
    'Customer.email': ['ada@example.com'],
    'Service.id': ['svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc'],
    'Service.name': ['Timed entry, 19:00'],
    'BookingEvent.id': ['msg_2Wq8Ls1Df6Gh0Jk4Za9Xc'],
    'Account.id': ['acct_4Nq2hXb8Yw1cVt0Rz9LmPe'],
    'ApiKey.id': ['key_7Hc2Vb9Qx0LmNw3Rt8YsKd'],
    'IssuedApiKey.key': ['key_7Hc2Vb9Qx0LmNw3Rt8YsKd.sk_Q3xZ…'],
    'Usage.apiKeyId': ['key_4Nq2hXb8Yw1cVt0Rz9LmPe'],
    'RouteUsage.route': ['GET /api/v1/events'],
    'WebhookEndpoint.id': ['we_5Tg8Kp2Xc0Vn7Lq3Rm9WsB'],
    'WebhookEndpoint.url': ['https://shop.example/hooks/hallowgate'],
    'WebhookEndpointWithSecret.secret': ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    'WebhookDelivery.id': ['whd_1Pz6Nw4Kc8Xq2Vb0Lm7RtY'],
    'Category.slug': ['haunted-house'],
  } as Record<string, unknown[]>,
};

/** Headers of the webhook requests. */
const webhookParameters = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The event's `msg_…` id, the same on every retry and redelivery; receivers deduplicate on it.",
    schema: { type: 'string', examples: ['msg_2Wq8Ls1Df6Gh0Jk4Za9Xc'] },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was signed, in whole seconds since the Unix epoch.',
    schema: { type: 'string', pattern: '^\\d+$', examples: ['1795461600'] },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_` (Standard Webhooks). For 24 h after a rotation there are two, separated by a space: one with the new secret and one with the old, so a receiver verifies with either.',
    schema: { type: 'string', examples: ['v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4= v1,3x1Kq0VvTf2Gz9cRkW7pY8bLs4NdHe6MjA5uQ1oXiB0='] },
  },
};

const bookingId = "A `bk_…` id of the caller's account; any other gives 404.";
const holdId = "A `hold_…` id of the caller's account; any other gives 404.";
const waitlistEntryId = "A `wle_…` id of the caller's account; any other gives 404.";
const ifMatch =
  'The `ETag` a GET of the booking answered (or `*`, any): if the booking changed since, 412 `precondition_failed` and nothing changes. Compared strongly: a weak tag never matches.';
const endpointId = "A `we_…` id of the caller's account; any other (or a deleted one) gives 404.";
const idempotencyKeyParameter = '1 to 255 visible ASCII characters chosen by the client, e.g. a UUID.';
const idempotencyKeyErrors = {
  idempotency_key_in_use: 'in the rare case that an earlier request with the key vanished mid-way.',
  idempotency_key_reused: 'the `Idempotency-Key` came before with another body (or on another create).',
};
/** A hold's or a waitlist entry's create under an Idempotency-Key: its answers are always read as the record stands. */
function replayedAsItIsNow(what: 'hold' | 'entry'): string {
  return `\`Idempotency-Key\` is honoured for 24 h per account (a booking widget token's keys are its own): the same key with the same body answers 201 again with the ${what} the first request made, as it is now (unlike a booking's replay, with no \`Idempotent-Replayed\` header), making no other; with another body, or one sent to another create, it gives 422 \`idempotency_key_reused\`. A retry sent while the first request is still running waits for it. Only successful creates are remembered.`;
}
const usageRange = { from: 'Start of the range, inclusive.', to: 'End of the range, exclusive; after `from`.' };

/** What every webhook request of the document shares: no credential but the signature headers, a JSON body of `schema`, and what answers mean. */
function signedDelivery(schema: string) {
  return {
    security: [],
    parameters: [{ $ref: '#/components/parameters/WebhookId' }, { $ref: '#/components/parameters/WebhookTimestamp' }, { $ref: '#/components/parameters/WebhookSignature' }],
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } },
    responses: {
      '200': { description: 'Any 2xx ends the delivery.' },
      '400': { description: 'Anything other than 2xx (including 3xx and 4xx) is retried on the schedule.' },
    },
  };
}

const v1: DocumentProse = {
  info: {
    title: 'hallowgate booking service',
    version: '1.0.0',
    description: [
      'Bookings, services, the booking event log, webhook endpoints and operator routes, under `/v1`.',
      'Every route runs an operation of the hallowgate GraphQL schema (`/graphql`).',
      'Errors are RFC 9457 `application/problem+json` with a stable `code`; every answer carries `X-Request-Id`.',
    ].join('\n'),
  },
  tags: [
    { name: 'Bookings', description: 'Create, list, read, change and cancel bookings.' },
    { name: 'Holds and waitlists', description: 'Places kept while a customer books, and lines for full slots that offer freed places.' },
    { name: 'Services', description: 'Bookable offerings such as timed entries.' },
    { name: 'Booking events', description: 'The durable log of booking changes.' },
    { name: 'Webhook endpoints', description: 'Where booking events are delivered, signed per Standard Webhooks.' },
    { name: 'Operators', description: 'Accounts, API keys and widget tokens (scope admin).' },
    { name: 'Analytics', description: 'Per-key usage.' },
    { name: 'Meta', description: 'Documents about the API.' },
  ],
  routes: {
    'GET /v1/openapi.json': { tags: ['Meta'], operationId: 'getBookingServiceOpenApi', summary: 'This document', response: 'The OpenAPI document.' },
    'POST /v1/bookings': {
      tags: ['Bookings'],
      operationId: 'createBooking',
      summary: 'Create a booking',
      description: [
        'Books `party_size` places (default 1) in a slot of the service: `start_time` must be one of the times `GET /v1/services/{id}/availability` lists, that has not started (422 `not_a_slot` or `in_past` on `start_time`). At most `capacity` places of a slot are taken, whatever number of clients book at once; fewer places left than `party_size` gives 409 `slot_full`.',
        '',
        "Or books a hold (`POST /v1/holds`, or a waitlist offer): `hold_id` instead of `service_id`, `start_time` and `party_size` (sending them too gives 422 `not_with_hold`), and `customer`, which a waitlist offer may leave out (its entry's is used). The held places become the booking's with no new capacity check; a hold that expired, was released or was booked already gives 409 `hold_expired`. A credential with `bookings:book` but not `bookings:write` (a booking widget token) books only this way, naming the `customer`.",
        '',
        '`Idempotency-Key` is honoured for 24 h per account: the same key with the same body answers 201 again with the first answer as it was sent (later changes to the booking do not show) and `Idempotent-Replayed: true`, creating nothing; with another body it gives 422 `idempotency_key_reused`. A retry sent while the first request is still running waits for it and replays its result. Only successful creates are remembered, so a retry after an error (such as `slot_full`) runs again.',
      ].join('\n'),
      response: 'The booking, `confirmed`.',
      parameters: { 'Idempotency-Key': idempotencyKeyParameter },
      errors: {
        slot_full: 'the slot has fewer places left than `party_size`.',
        hold_expired: 'the `hold_id` names a hold that expired, was released or was booked already.',
        ...idempotencyKeyErrors,
      },
      requestExample: {
        service_id: 'svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc',
        start_time: '2027-10-31T19:00:00Z',
        party_size: 2,
        customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      },
    },
    'GET /v1/bookings': {
      tags: ['Bookings'],
      operationId: 'listBookings',
      summary: 'List bookings',
      description:
        "The account's bookings by `start_time`, then id; with `updated_since`, by `updated_at`, then id, so a receiver that missed webhooks re-syncs from the last `updated_at` it saw. A cursor pages in the order it was made in (by the values of the last row sent, so a row that changes meanwhile moves no other out of the pages); under the other order it gives 400 naming `cursor`. `Last-Modified` is the last change of any booking of the account.",
      response: 'A page of bookings.',
      parameters: {
        start_date: 'First UTC day (inclusive) on which `start_time` may fall.',
        end_date: 'Last UTC day (inclusive); before `start_date` gives 400.',
        service_id: "Only this service's bookings.",
        updated_since: 'Only bookings whose `updated_at` is at or after this UTC time; orders the list by `updated_at`, then id.',
        created_since: 'Only bookings whose `created_at` is at or after this UTC time.',
      },
    },
    'GET /v1/bookings/{id}': { tags: ['Bookings'], operationId: 'getBooking', summary: 'Get a booking', response: 'The booking.', parameters: { id: bookingId } },
    'PATCH /v1/bookings/{id}': {
      tags: ['Bookings'],
      operationId: 'updateBooking',
      summary: 'Change a booking',
      description:
        'Changes any of `start_time`, `service_id`, `party_size` and `customer`. A change logs `booking.updated`, whose `data.previous_attributes` holds the fields that changed with their values before; a PATCH that changes nothing logs nothing. The new slot must be a slot of the service that has not started, with `party_size` places left besides the ones this booking holds. With `If-Match`, the change is made only if the booking is still at that ETag, checked and written in one transaction.',
      response: 'The booking after the change.',
      parameters: { id: bookingId, 'If-Match': ifMatch },
      errors: {
        booking_cancelled: 'a cancelled booking never changes.',
        slot_full: 'the slot has fewer places left than `party_size`.',
        precondition_failed: 'the booking changed since the ETag sent in `If-Match`.',
      },
      requestExample: { start_time: '2027-10-31T20:00:00Z' },
    },
    'DELETE /v1/bookings/{id}': {
      tags: ['Bookings'],
      operationId: 'cancelBooking',
      summary: 'Cancel a booking',
      description:
        'Cancels the booking and frees its place; the record is kept. An optional JSON body `{ "reason": "…" }` (at most 500 characters) is carried by `booking.cancelled` in `data.cancellation`, with `by`: the `key_…` id that cancelled, or `operator` for an admin key. A repeated DELETE answers 200 with the cancelled booking and logs no second event. With `If-Match`, the booking is cancelled only if it is still at that ETag.',
      response: 'The booking, now `cancelled`.',
      parameters: { id: bookingId, 'If-Match': ifMatch },
      errors: { precondition_failed: 'the booking changed since the ETag sent in `If-Match`.' },
      requestExample: { reason: 'The customer called: plans changed.' },
    },
    'POST /v1/holds': {
      tags: ['Holds and waitlists'],
      operationId: 'createHold',
      summary: 'Hold places in a slot',
      description: [
        "Keeps `party_size` places of a slot for `expires_in_seconds` (60 to 1,800; 600 when left out) while a customer completes a booking: they count against the slot's capacity exactly as a booking's do, taken under the same single conditional update, so holds and bookings together never exceed it. From `expires_at` on, the hold counts for nothing, whatever runs later: availability's `remaining` goes back up at that instant.",
        '',
        'Book it with `POST /v1/bookings` and `{ "hold_id": "hold_…", "customer": { … } }`: the booking takes the held places with no new capacity check that could fail, or gives 409 `hold_expired` once the hold has expired or was released.',
        '',
        replayedAsItIsNow('hold'),
      ].join('\n'),
      response: 'The hold, `held`, with `expires_at`.',
      parameters: { 'Idempotency-Key': idempotencyKeyParameter },
      errors: {
        slot_full: 'the slot has fewer places left than `party_size`.',
        too_many_holds: 'the account has 1,000 holds held already (its waitlist offers included), or the booking widget token 100.',
        ...idempotencyKeyErrors,
      },
      requestExample: { service_id: 'svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc', start_time: '2027-10-31T19:00:00Z', party_size: 2, expires_in_seconds: 300 },
    },
    'GET /v1/holds/{id}': {
      tags: ['Holds and waitlists'],
      operationId: 'getHold',
      summary: 'Get a hold',
      description: 'A hold past `expires_at` reads `expired` at once, whether or not the server has recorded it yet.',
      response: 'The hold.',
      parameters: { id: holdId },
    },
    'DELETE /v1/holds/{id}': {
      tags: ['Holds and waitlists'],
      operationId: 'releaseHold',
      summary: 'Release a hold',
      description:
        "Gives the places back now; they are offered to the slot's waitlist in the same transaction. Releasing a waitlist offer's hold declines the offer (its entry becomes `withdrawn`). A hold no longer held (`released`, `expired`, `converted`) is answered as it is: repeating the DELETE is 200.",
      response: 'The hold, `released` (or as it was).',
      parameters: { id: holdId },
    },
    'POST /v1/waitlist_entries': {
      tags: ['Holds and waitlists'],
      operationId: 'createWaitlistEntry',
      summary: 'Join the waitlist of a slot',
      description: [
        'Adds an entry to the line for a slot, typically one that answered 409 `slot_full`. When places are freed (a cancellation, a reschedule away or a smaller party, a hold released or expired, a capacity raised), they are offered in the same transaction (or, for an expiry, within a second): entries are taken in the order they joined, and each one whose party fits in the places free gets an **offer**, a hold of its own for `offer_expires_in_seconds` (60 to 1,800; 600 when left out), announced as the event `waitlist.offered` (webhooks, `GET /v1/booking_events`, subscriptions). An entry larger than what is free keeps its place in line: later entries that fit are offered those places meanwhile, and it is offered first once enough are free.',
        '',
        'Book an offer with `POST /v1/bookings` and `{ "hold_id": offer.hold_id }` (the entry\'s customer is used when `customer` is left out). An offer not booked by its `expires_at` expires the entry, and its places go to the next entries. If places are free when the entry is made, it is answered already `offered`.',
        '',
        replayedAsItIsNow('entry'),
      ].join('\n'),
      response: 'The entry: `waiting`, or `offered` with its `offer`.',
      parameters: { 'Idempotency-Key': idempotencyKeyParameter },
      errors: {
        too_many_waitlist_entries: 'the account has 1,000 entries waiting or offered already, or the booking widget token 100.',
        too_many_holds: 'the entry would be offered at once past the holds the account (1,000) or the booking widget token (100) may have held.',
        ...idempotencyKeyErrors,
      },
      requestExample: {
        service_id: 'svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc',
        start_time: '2027-10-31T19:00:00Z',
        party_size: 4,
        customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
        offer_expires_in_seconds: 900,
      },
    },
    'GET /v1/waitlist_entries': {
      tags: ['Holds and waitlists'],
      operationId: 'listWaitlistEntries',
      summary: 'List waitlist entries',
      description: "The account's entries in the order they joined.",
      response: 'A page of entries.',
      parameters: { service_id: "Only this service's entries.", status: 'Only entries in this status, as it reads now (an offer past its `expires_at` is `expired`).' },
    },
    'GET /v1/waitlist_entries/{id}': {
      tags: ['Holds and waitlists'],
      operationId: 'getWaitlistEntry',
      summary: 'Get a waitlist entry',
      response: 'The entry.',
      parameters: { id: waitlistEntryId },
    },
    'DELETE /v1/waitlist_entries/{id}': {
      tags: ['Holds and waitlists'],
      operationId: 'withdrawWaitlistEntry',
      summary: 'Leave the waitlist',
      description:
        "Withdraws the entry; an offered entry's hold is released and its places offered to the next entries. An entry no longer `waiting` or `offered` is answered as it is: repeating the DELETE is 200.",
      response: 'The entry, `withdrawn` (or as it was).',
      parameters: { id: waitlistEntryId },
    },
    'GET /v1/services': {
      tags: ['Services'],
      operationId: 'listServices',
      summary: 'List services',
      description: 'Bookable offerings, by id.',
      response: 'A page of services.',
      parameters: { attraction_id: "Only this attraction's services." },
    },
    'GET /v1/services/{id}': { tags: ['Services'], operationId: 'getService', summary: 'Get a service', response: 'The service.', parameters: { id: 'A `svc_…` id.' } },
    'GET /v1/services/{id}/availability': {
      tags: ['Services'],
      operationId: 'getServiceAvailability',
      summary: 'List free slots',
      description: [
        "Every slot of the service starting on the local days `start_date` … `end_date` (in the service's `timezone`, both inclusive, at most 31 days) that has not started, oldest first, with the places it has (`capacity`) and the places left (`remaining`: `capacity` minus confirmed bookings' and unexpired holds' places).",
        '',
        'Slots start at `opens + k × slot_minutes` local time on each season day with opening hours, while the visit (`duration_minutes`) ends by `closes`. On the night clocks go back a repeated local time has two slots; on the night they go forward a missing one has none. A booking, a cancel or a reschedule changes the answer at once, so pages can poll it with `If-None-Match`, or follow it live.',
        '',
        'With `Accept: text/event-stream` (preferred to JSON) the answer is a stream of server-sent events instead, one `data:` JSON object per slot, `{ service_id, start_time, end_time, capacity, remaining }`: first every slot of the range that has not started (the current state, so a client that reconnects misses nothing), then each slot whose `remaining` changes, as the change commits (bookings, cancels, reschedules, holds placed, released or expired, waitlist offers, an operator changing the service); a slot taken out of the schedule is sent once with `remaining` 0. The last slot of the first state and of each change carries an `id:` (`avl_…`) naming the state the client then holds: sent back as `Last-Event-ID`, the stream sends nothing first while the range is still in that state, and every slot otherwise. Widget tokens read it too: availability is public.',
      ].join('\n'),
      response: '`{ service_id, timezone, data }`: the slots, each `{ start_time, end_time, capacity, remaining }`.',
      parameters: {
        id: 'A `svc_…` id.',
        start_date: "First local day, `YYYY-MM-DD` in the service's time zone.",
        end_date: 'Last local day (inclusive); before `start_date`, or more than 31 days after it, gives 400.',
      },
    },
    'GET /v1/booking_events': {
      tags: ['Booking events'],
      operationId: 'listBookingEvents',
      summary: 'List booking events',
      description:
        "The account's booking events, oldest first: `booking.created`, `booking.updated` (a change that changed something) and `booking.cancelled`, each written in the same transaction as its change.",
      response: 'A page of events.',
      parameters: { after: 'Only events logged after this `msg_…` event of the account; an unknown id gives 400.' },
    },
    'POST /v1/webhook_endpoints': {
      tags: ['Webhook endpoints'],
      operationId: 'createWebhookEndpoint',
      summary: 'Create a webhook endpoint',
      description: [
        "Registers a URL to receive the account's booking events (all kinds, or those in `events`), each as a signed `POST` per Standard Webhooks (see the `bookingEvent` webhook). The answer carries the signing `secret`, shown only now.",
        '',
        'Deliveries are queued in the transaction that logs the event, so none is lost. A 2xx answer within 10 s ends a delivery; anything else is retried, with the same `webhook-id`, after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (the server’s `WEBHOOK_RETRY_SCHEDULE`), after which the delivery is `failed`. An endpoint is sent its events in log order, one at a time. An endpoint with no successful delivery for 5 days is disabled (`enabled: false`, `disabled_reason`).',
      ].join('\n'),
      response: 'The endpoint and its secret.',
      errors: { too_many_endpoints: 'the account has as many endpoints as it may.' },
      requestExample: { url: 'https://shop.example/hooks/hallowgate', events: ['booking.created', 'booking.cancelled'] },
    },
    'GET /v1/webhook_endpoints': {
      tags: ['Webhook endpoints'],
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints',
      description: "The account's endpoints (not deleted ones), by id, without secrets.",
      response: 'A page of endpoints.',
    },
    'GET /v1/webhook_endpoints/{id}': {
      tags: ['Webhook endpoints'],
      operationId: 'getWebhookEndpoint',
      summary: 'Get a webhook endpoint',
      description: 'The endpoint, without its secret.',
      response: 'The endpoint.',
      parameters: { id: endpointId },
    },
    'PATCH /v1/webhook_endpoints/{id}': {
      tags: ['Webhook endpoints'],
      operationId: 'updateWebhookEndpoint',
      summary: 'Change a webhook endpoint',
      description: 'Changes the URL, kinds, description or `enabled`. Deliveries already queued keep going to the endpoint, at its new URL.',
      response: 'The endpoint as changed.',
      parameters: { id: endpointId },
      requestExample: { enabled: true },
    },
    'DELETE /v1/webhook_endpoints/{id}': {
      tags: ['Webhook endpoints'],
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      description: 'It receives nothing more; its pending deliveries become `failed`.',
      response: 'The endpoint is gone.',
      parameters: { id: endpointId },
    },
    'POST /v1/webhook_endpoints/{id}/rotate_secret': {
      tags: ['Webhook endpoints'],
      operationId: 'rotateWebhookEndpointSecret',
      summary: "Rotate a webhook endpoint's secret",
      description:
        'Makes a new signing secret, shown only in this answer. For the next 24 h every delivery carries two signatures in `webhook-signature` (new secret and old), so the receiver can switch at its own pace; then only the new one. One old secret signs at a time: rotating again within the 24 h makes the secret just replaced the old one, and the one before stops signing at once (what a leaked secret calls for).',
      response: 'The endpoint and its new secret.',
      parameters: { id: endpointId },
    },
    'GET /v1/webhook_endpoints/{id}/deliveries': {
      tags: ['Webhook endpoints'],
      operationId: 'listWebhookDeliveries',
      summary: "List an endpoint's deliveries",
      description: "The endpoint's deliveries, newest first, each with its attempts (status or error, duration).",
      response: 'A page of deliveries.',
      parameters: { id: endpointId },
    },
    'POST /v1/webhook_endpoints/{id}/deliveries/{delivery_id}/redeliver': {
      tags: ['Webhook endpoints'],
      operationId: 'redeliverWebhookDelivery',
      summary: 'Send a delivery again',
      description:
        "Queues a `succeeded` or `failed` delivery for another attempt now (after the endpoint's delivery being sent, if one is: an endpoint receives one at a time), with the same `webhook-id` and the same body (a new timestamp and signature). A test event is attempted once again, never retried.",
      response: 'The delivery, `pending` again.',
      parameters: { id: endpointId, delivery_id: 'A delivery of this endpoint; any other gives 404.' },
      errors: { delivery_pending: 'the delivery is still being attempted.', endpoint_disabled: 'the endpoint is disabled: enable it first.' },
    },
    'POST /v1/webhook_endpoints/{id}/test': {
      tags: ['Webhook endpoints'],
      operationId: 'sendTestWebhook',
      summary: 'Send the endpoint a test event',
      description: [
        'Sends the endpoint, now, one signed example event of the kind in `event`: a body of exactly the shape a real event of that kind has (fresh example ids that name no record), plus a top-level `"test": true`, inside the signed body. Its `webhook-id` is a fresh `msg_…`.',
        '',
        'It goes through the delivery code real events take (signature, address checks, the 10 s deadline) and takes its turn as they do: while a delivery to the endpoint is being sent, it is refused with 409 `endpoint_busy`. It is recorded as a delivery of this endpoint (`test: true` in the list), attempted once and never retried. A disabled endpoint takes tests too, to try a receiver before enabling it again. It never enters the booking log: `GET /v1/booking_events`, subscriptions and the other endpoints never see it. Booking kinds also need the `bookings:read` scope, as an endpoint receiving them does; the endpoint must take the kind (its `events` empty or listing it).',
      ].join('\n'),
      response: "The delivery, `succeeded` or `failed`, with its one attempt (the receiver's status, or why none came).",
      parameters: { id: endpointId },
      requestExample: { event: 'booking.cancelled' },
      errors: { endpoint_busy: 'a delivery to the endpoint is being sent: an endpoint receives one at a time.' },
    },
    'GET /v1/usage': {
      tags: ['Analytics'],
      operationId: 'getUsage',
      summary: 'Usage of the calling key',
      description:
        'Requests, errors, mean latency and bytes of the calling API key per minute, hour or day, and a breakdown per route. Every REST request, GraphQL request and graphql-ws operation of the key counts. Usage is written in batches, so the newest requests appear within one flush interval (10 s by default).',
      response: 'The usage report.',
      parameters: usageRange,
    },
    'GET /v1/admin/api_keys/{id}/usage': {
      tags: ['Operators'],
      operationId: 'getApiKeyUsage',
      summary: 'Usage of any API key',
      description: 'The report of `GET /v1/usage` for any key.',
      response: 'The usage report.',
      parameters: { id: 'A `key_…` id.', ...usageRange },
    },
    'POST /v1/admin/accounts': {
      tags: ['Operators'],
      operationId: 'createAccount',
      summary: 'Create an account',
      response: 'The new account.',
      requestExample: { name: 'Salem Haunts' },
    },
    'GET /v1/admin/accounts': { tags: ['Operators'], operationId: 'listAccounts', summary: 'List accounts', response: 'A page of accounts, ordered by id.' },
    'POST /v1/admin/api_keys': {
      tags: ['Operators'],
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description:
        'Issues `<KEY_ID>.<SECRET>` for an account. Only a hash of the secret is stored. Enterprise keys also get an HMAC `signing_secret`; `require_signature` is enterprise-only.',
      response: 'The key, with `key` (and `signing_secret` where signing is on) shown only now.',
      requestExample: { account_id: 'acct_4Nq2hXb8Yw1cVt0Rz9LmPe', plan: 'pro', scopes: ['bookings:read', 'bookings:write'] },
    },
    'GET /v1/admin/api_keys': {
      tags: ['Operators'],
      operationId: 'listApiKeys',
      summary: 'List API keys',
      response: 'A page of keys (revoked ones included), ordered by id; secrets are never listed.',
      parameters: { account_id: "Only this account's keys." },
    },
    'DELETE /v1/admin/api_keys/{id}': {
      tags: ['Operators'],
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: 'Revoked keys get 401 at once on the instance that revoked them, and within 5 s on every other instance (the credential cache).',
      response: 'The key, now revoked. Repeating the call changes nothing.',
    },
    'POST /v1/admin/api_keys/{id}/rotate': {
      tags: ['Operators'],
      operationId: 'rotateApiKey',
      summary: 'Rotate an API key',
      description: 'Replaces the secret; the old one stops working.',
      response: 'The key with its new secret (and new signing secret where signing is on), shown only now.',
      errors: { key_revoked: 'a revoked key cannot be rotated.' },
    },
    'POST /v1/admin/widget_tokens': {
      tags: ['Operators'],
      operationId: 'createWidgetToken',
      summary: 'Create a widget token',
      description:
        "A public `wt_…` token for the embeddable widget: it reads the directory and services' availability (public, `GET /v1/services/{id}` and its `/availability`, live too) only, only from its `allowed_origins`, within its own per-minute limit.",
      response: 'The new token.',
      requestExample: { account_id: 'acct_4Nq2hXb8Yw1cVt0Rz9LmPe', allowed_origins: ['https://shop.example'] },
    },
    'POST /v1/admin/services': {
      tags: ['Operators'],
      operationId: 'createService',
      summary: 'Create a service',
      description:
        'A bookable offering of an attraction with its schedule: `timezone` (IANA), `slot_minutes`, the season (`season_start` … `season_end`, local days, inclusive) and weekly `opening_hours` (ISO `weekday`, local `opens` and `closes` as `HH:MM`; a `closes` earlier than `opens` runs past midnight). Every field is checked: an unknown zone, a time such as `25:00`, a season that ends before it starts or an opening shorter than one visit give 422 with field errors.',
      response: 'The new service; `Location` is its `GET /v1/services/{id}` URL.',
      requestExample: {
        attraction_id: 'att_2Kd9Vx4Tq7Lm1Pz8Rc3Nb',
        name: 'Timed entry',
        duration_minutes: 30,
        capacity: 20,
        timezone: 'America/New_York',
        slot_minutes: 30,
        season_start: '2027-09-24',
        season_end: '2027-11-01',
        opening_hours: [
          { weekday: 5, opens: '19:00', closes: '01:00' },
          { weekday: 6, opens: '19:00', closes: '01:00' },
        ],
      },
    },
    'PATCH /v1/admin/services/{id}': {
      tags: ['Operators'],
      operationId: 'updateService',
      summary: 'Change a service',
      description:
        'Changes any of the fields of a service; `opening_hours` replaces every opening. A schedule change never cancels or moves a confirmed booking: bookings keep their slot, and only new bookings and reschedules follow the new schedule.',
      response: 'The service after the change.',
      parameters: { id: 'A `svc_…` id.' },
      requestExample: { capacity: 30, opening_hours: [{ weekday: 6, opens: '18:00', closes: '02:00' }] },
    },
    'PATCH /v1/admin/attractions/{id}': {
      tags: ['Operators'],
      operationId: 'placeAttraction',
      summary: 'Place an attraction',
      description: 'Sets where an attraction is (WGS 84 degrees): near searches (`lat`, `lng`, `radius` on `/api/v1/attractions`) find it there.',
      response: 'The attraction at its new place.',
      parameters: { id: 'An `at_…` id.' },
      requestExample: { latitude: 42.5195, longitude: -70.8967 },
    },
    'GET /v1/admin/widget_tokens': {
      tags: ['Operators'],
      operationId: 'listWidgetTokens',
      summary: 'List widget tokens',
      response: 'A page of tokens, ordered by id.',
      parameters: { account_id: "Only this account's tokens." },
    },
    'DELETE /v1/admin/widget_tokens/{id}': { tags: ['Operators'], operationId: 'revokeWidgetToken', summary: 'Revoke a widget token', response: 'The token, now revoked.' },
  },
  webhooks: {
    bookingEvent: {
      post: {
        tags: ['Webhook endpoints'],
        operationId: 'receiveBookingEvent',
        summary: 'A booking event, delivered to your endpoint',
        description: [
          "One `POST` per event and endpoint, signed per Standard Webhooks (verify with any Standard Webhooks library and the endpoint's `whsec_…` secret; refuse timestamps far from now). The body is the event exactly as `GET /v1/booking_events` lists it.",
          '',
          '- Answer 2xx within 10 s to end the delivery. Anything else, or no answer in time, is retried with the same `webhook-id` after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (configurable on the server with `WEBHOOK_RETRY_SCHEDULE`); after the last, the delivery is `failed`.',
          '- Delivery is at least once: after a crash or a timeout the same `webhook-id` may come again, so deduplicate on it. Each endpoint gets its events in log order.',
          '- An endpoint without a successful delivery for 5 days is disabled.',
          '- Redirects are not followed. Hosts resolving to private, loopback or link-local addresses are refused at every attempt, on the address actually connected to.',
          '- A test event (`POST /v1/webhook_endpoints/{id}/test`) has the same body plus a top-level `"test": true`; no event of the log carries `test`.',
        ].join('\n'),
        ...signedDelivery('BookingEvent'),
      },
    },
    waitlistOffered: {
      post: {
        tags: ['Webhook endpoints'],
        operationId: 'receiveWaitlistOffer',
        summary: 'A waitlist offer, delivered to your endpoint',
        description:
          "Sent to endpoints whose `events` include `waitlist.offered` (or are empty) when freed places are offered to one of the account's waitlist entries: `data` is the entry, its `offer.hold_id` the hold to book before `offer.expires_at`. Signed, ordered and retried exactly like booking events; the same body is in `GET /v1/booking_events` and on subscriptions.",
        ...signedDelivery('BookingEvent'),
      },
    },
    usageAlert: {
      post: {
        tags: ['Webhook endpoints'],
        operationId: 'receiveUsageAlert',
        summary: "A usage alert of one of the account's keys, delivered to your endpoint",
        description: 'Sent to endpoints whose `events` include `api_key.usage_alert` (or are empty), signed and retried exactly like booking events, in order with them.',
        ...signedDelivery('UsageAlertEvent'),
      },
    },
  },
  parameters: webhookParameters,
  schemas: {
    // The usage alert message is built by the alert checker, not by a GraphQL operation, so its shape is kept here.
    UsageAlertEvent: {
      type: 'object',
      description: "An alert rule of one of the account's keys fired; sent once per rule and window.",
      required: ['id', 'event', 'created', 'data'],
      properties: {
        id: { type: 'string', description: 'A `msg_…` id, the webhook-id.' },
        event: { type: 'string', const: 'api_key.usage_alert' satisfies WebhookEventType },
        created: { $ref: '#/components/schemas/DateTime' },
        data: {
          type: 'object',
          required: ['id', 'api_key_id', 'rule_id', 'metric', 'threshold', 'window_minutes', 'value', 'window_start', 'window_end', 'created_at'],
          properties: {
            id: { type: 'string', description: 'The `ual_…` alert, as listed by `viewer { usageAlerts }`.' },
            api_key_id: { type: 'string' },
            rule_id: { type: 'string' },
            metric: { type: 'string', enum: Object.values(AlertMetric) },
            threshold: { type: 'number' },
            window_minutes: {
              type: 'integer',
              description:
                'How long the window is, in minutes, as the rule’s `windowMinutes` says: the one chosen for error_rate, 1 for rate_limit_share (the minute), 1440 for daily_requests (the UTC day).',
            },
            value: { type: 'number', description: 'The measure that reached the threshold: a share from 0 to 1, or a number of requests.' },
            window_start: { $ref: '#/components/schemas/DateTime' },
            window_end: { $ref: '#/components/schemas/DateTime' },
            created_at: { $ref: '#/components/schemas/DateTime' },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
  },
};

const directoryFilters = {
  city: 'Matches case-insensitively.',
  category: 'A category slug, such as `haunted-house`.',
  starts_after: 'A date (the start of that UTC day) or a UTC timestamp; inclusive.',
  starts_before: 'A date (the start of that UTC day) or a UTC timestamp; exclusive.',
};

const apiV1: DocumentProse = {
  info: {
    title: 'hallowgate events and attractions directory',
    version: '1.0.0',
    description: [
      'The directory of Halloween events and attractions, under `/api/v1`: includes, pagination, filters, sorting, field projection and conditional requests (ETag/Last-Modified, 304).',
      'Every route runs an operation of the hallowgate GraphQL schema (`/graphql`); `include` and `fields` become its selection set.',
      '',
      '- Filters: `city` matches case-insensitively; `category` takes a slug; `starts_after` (inclusive) and `starts_before` (exclusive) take a date (the start of that UTC day) or a UTC timestamp; `q` finds its text, literally and case-insensitively, in titles, descriptions and venues (events) or names and descriptions (attractions).',
      '- Order: events by `starts_at`, attractions by `name`, categories by `slug` unless `sort` says otherwise; the id breaks ties, so cursors stay stable.',
      '- Caching: every 200 carries a strong `ETag` (over the exact body), `Cache-Control: private, max-age=60` and `Vary: Authorization` (plus `Origin` for CORS), and a record’s GET also `Last-Modified` (the newest `updated_at` of the record and what it includes); a list has none, since records leave it without any date moving forward. `If-None-Match` (weak comparison), or on a record `If-Modified-Since`, answers 304 with an empty body. An attraction’s `updated_at` is that of its aggregated view, so it also moves when one of its events starts (which moves `next_starts_at`). With `available_for`, an answer follows places left, which bookings and holds change without dating any record: it has no `Last-Modified` and `Cache-Control: private, max-age=0`, and only `If-None-Match` revalidates it.',
    ].join('\n'),
  },
  tags: [
    { name: 'Events', description: 'Dated Halloween events.' },
    { name: 'Attractions', description: 'Aggregated view of the places that hold events.' },
    { name: 'Categories', description: 'Kinds of events, such as haunted-house.' },
    { name: 'Meta', description: 'Documents about the API.' },
  ],
  routes: {
    'GET /api/v1/openapi.json': { tags: ['Meta'], operationId: 'getDirectoryOpenApi', summary: 'This document', response: 'The OpenAPI document.' },
    'GET /api/v1/events': {
      tags: ['Events'],
      operationId: 'listEvents',
      summary: 'List events',
      response: 'A page of events.',
      parameters: { ...directoryFilters, q: 'Text found, literally and case-insensitively, in the title, description or venue (at most 200 characters).' },
    },
    'GET /api/v1/events/{id}': { tags: ['Events'], operationId: 'getEvent', summary: 'Retrieve one of the events', response: 'The event.' },
    'GET /api/v1/attractions': {
      tags: ['Attractions'],
      operationId: 'listAttractions',
      summary: 'List attractions',
      description: 'An attraction’s `events` (with `include=events`) are at most 100, by start time, in the event shape.',
      response: 'A page of attractions.',
      parameters: { ...directoryFilters, q: 'Text found, literally and case-insensitively, in the name or description (at most 200 characters).' },
    },
    'GET /api/v1/attractions/{id}': { tags: ['Attractions'], operationId: 'getAttraction', summary: 'Retrieve one of the attractions', response: 'The attraction.' },
    'GET /api/v1/categories': { tags: ['Categories'], operationId: 'listCategories', summary: 'List categories', response: 'A page of categories, by slug.' },
    'GET /api/v1/categories/{id_or_slug}': {
      tags: ['Categories'],
      operationId: 'getCategory',
      summary: 'Retrieve one of the categories',
      response: 'The category.',
      parameters: { id_or_slug: 'A `cat_…` id or a slug.' },
    },
  },
};

export const documentProse: Record<DocumentName, DocumentProse> = { v1, 'api-v1': apiV1 };
