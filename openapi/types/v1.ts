/** Types of the booking service, /v1 (v1.json), written by `npm run generate:client`: do not edit. */

export interface paths {
    "/v1/admin/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List accounts
         * @description Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminListAccounts`.
         */
        get: operations["listAccounts"];
        put?: never;
        /**
         * Create an account
         * @description Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminCreateAccount`.
         */
        post: operations["createAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/api_keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminListApiKeys`.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an API key
         * @description Issues `<KEY_ID>.<SECRET>` for an account. Only a hash of the secret is stored. Enterprise keys also get an HMAC `signing_secret`; `require_signature` is enterprise-only.
         *
         *     Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminCreateApiKey`.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/api_keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Revoked keys get 401 at once on the instance that revoked them, and within 5 s on every other instance (the credential cache).
         *
         *     Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminRevokeApiKey`.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/api_keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an API key
         * @description Replaces the secret; the old one stops working.
         *
         *     Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminRotateApiKey`.
         */
        post: operations["rotateApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/api_keys/{id}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage of any API key
         * @description The report of `GET /v1/usage` for any key.
         *
         *     Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `ApiKeyUsage`.
         */
        get: operations["getApiKeyUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/attractions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Place an attraction
         * @description Sets where an attraction is (WGS 84 degrees): near searches (`lat`, `lng`, `radius` on `/api/v1/attractions`) find it there.
         *
         *     Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminPlaceAttraction`.
         */
        patch: operations["placeAttraction"];
        trace?: never;
    };
    "/v1/admin/services": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a service
         * @description A bookable offering of an attraction with its schedule: `timezone` (IANA), `slot_minutes`, the season (`season_start` … `season_end`, local days, inclusive) and weekly `opening_hours` (ISO `weekday`, local `opens` and `closes` as `HH:MM`; a `closes` earlier than `opens` runs past midnight). Every field is checked: an unknown zone, a time such as `25:00`, a season that ends before it starts or an opening shorter than one visit give 422 with field errors.
         *
         *     Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminCreateService`.
         */
        post: operations["createService"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/services/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a service
         * @description Changes any of the fields of a service; `opening_hours` replaces every opening. A schedule change never cancels or moves a confirmed booking: bookings keep their slot, and only new bookings and reschedules follow the new schedule.
         *
         *     Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminUpdateService`.
         */
        patch: operations["updateService"];
        trace?: never;
    };
    "/v1/admin/widget_tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List widget tokens
         * @description Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminListWidgetTokens`.
         */
        get: operations["listWidgetTokens"];
        put?: never;
        /**
         * Create a widget token
         * @description A public `wt_…` token for the embeddable widget: it reads the directory and services' availability (public, `GET /v1/services/{id}` and its `/availability`, live too) only, only from its `allowed_origins`, within its own per-minute limit.
         *
         *     Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminCreateWidgetToken`.
         */
        post: operations["createWidgetToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/widget_tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a widget token
         * @description Needs the `admin` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `AdminRevokeWidgetToken`.
         */
        delete: operations["revokeWidgetToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/booking_events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List booking events
         * @description The account's booking events, oldest first: `booking.created`, `booking.updated` (a change that changed something) and `booking.cancelled`, each written in the same transaction as its change.
         *
         *     Needs the `bookings:read` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `ListBookingEvents`.
         */
        get: operations["listBookingEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/bookings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List bookings
         * @description The account's bookings by `start_time`, then id; with `updated_since`, by `updated_at`, then id, so a receiver that missed webhooks re-syncs from the last `updated_at` it saw. A cursor pages in the order it was made in (by the values of the last row sent, so a row that changes meanwhile moves no other out of the pages); under the other order it gives 400 naming `cursor`. `Last-Modified` is the last change of any booking of the account.
         *
         *     Needs the `bookings:read` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `ListBookings`.
         */
        get: operations["listBookings"];
        put?: never;
        /**
         * Create a booking
         * @description Books `party_size` places (default 1) in a slot of the service: `start_time` must be one of the times `GET /v1/services/{id}/availability` lists, that has not started (422 `not_a_slot` or `in_past` on `start_time`). At most `capacity` places of a slot are taken, whatever number of clients book at once; fewer places left than `party_size` gives 409 `slot_full`.
         *
         *     Or books a hold (`POST /v1/holds`, or a waitlist offer): `hold_id` instead of `service_id`, `start_time` and `party_size` (sending them too gives 422 `not_with_hold`), and `customer`, which a waitlist offer may leave out (its entry's is used). The held places become the booking's with no new capacity check; a hold that expired, was released or was booked already gives 409 `hold_expired`. A credential with `bookings:book` but not `bookings:write` (a booking widget token) books only this way, naming the `customer`.
         *
         *     `Idempotency-Key` is honoured for 24 h per account: the same key with the same body answers 201 again with the first answer as it was sent (later changes to the booking do not show) and `Idempotent-Replayed: true`, creating nothing; with another body it gives 422 `idempotency_key_reused`. A retry sent while the first request is still running waits for it and replays its result. Only successful creates are remembered, so a retry after an error (such as `slot_full`) runs again.
         *
         *     Needs the `bookings:write` scope or the `bookings:book` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `CreateBooking`.
         */
        post: operations["createBooking"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/bookings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a booking
         * @description Needs the `bookings:read` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `GetBooking`.
         */
        get: operations["getBooking"];
        put?: never;
        post?: never;
        /**
         * Cancel a booking
         * @description Cancels the booking and frees its place; the record is kept. An optional JSON body `{ "reason": "…" }` (at most 500 characters) is carried by `booking.cancelled` in `data.cancellation`, with `by`: the `key_…` id that cancelled, or `operator` for an admin key. A repeated DELETE answers 200 with the cancelled booking and logs no second event. With `If-Match`, the booking is cancelled only if it is still at that ETag.
         *
         *     Needs the `bookings:write` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `CancelBooking`.
         */
        delete: operations["cancelBooking"];
        options?: never;
        head?: never;
        /**
         * Change a booking
         * @description Changes any of `start_time`, `service_id`, `party_size` and `customer`. A change logs `booking.updated`, whose `data.previous_attributes` holds the fields that changed with their values before; a PATCH that changes nothing logs nothing. The new slot must be a slot of the service that has not started, with `party_size` places left besides the ones this booking holds. With `If-Match`, the change is made only if the booking is still at that ETag, checked and written in one transaction.
         *
         *     Needs the `bookings:write` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `UpdateBooking`.
         */
        patch: operations["updateBooking"];
        trace?: never;
    };
    "/v1/holds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hold places in a slot
         * @description Keeps `party_size` places of a slot for `expires_in_seconds` (60 to 1,800; 600 when left out) while a customer completes a booking: they count against the slot's capacity exactly as a booking's do, taken under the same single conditional update, so holds and bookings together never exceed it. From `expires_at` on, the hold counts for nothing, whatever runs later: availability's `remaining` goes back up at that instant.
         *
         *     Book it with `POST /v1/bookings` and `{ "hold_id": "hold_…", "customer": { … } }`: the booking takes the held places with no new capacity check that could fail, or gives 409 `hold_expired` once the hold has expired or was released.
         *
         *     `Idempotency-Key` is honoured for 24 h per account (a booking widget token's keys are its own): the same key with the same body answers 201 again with the hold the first request made, as it is now (unlike a booking's replay, with no `Idempotent-Replayed` header), making no other; with another body, or one sent to another create, it gives 422 `idempotency_key_reused`. A retry sent while the first request is still running waits for it. Only successful creates are remembered.
         *
         *     Needs the `bookings:write` scope or the `bookings:book` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `CreateHold`.
         */
        post: operations["createHold"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/holds/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a hold
         * @description A hold past `expires_at` reads `expired` at once, whether or not the server has recorded it yet.
         *
         *     Needs the `bookings:read` scope or the `bookings:write` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `GetHold`.
         */
        get: operations["getHold"];
        put?: never;
        post?: never;
        /**
         * Release a hold
         * @description Gives the places back now; they are offered to the slot's waitlist in the same transaction. Releasing a waitlist offer's hold declines the offer (its entry becomes `withdrawn`). A hold no longer held (`released`, `expired`, `converted`) is answered as it is: repeating the DELETE is 200.
         *
         *     Needs the `bookings:write` scope or the `bookings:book` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `ReleaseHold`.
         */
        delete: operations["releaseHold"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getBookingServiceOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/services": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List services
         * @description Bookable offerings, by id.
         *
         *     Needs an API key, of any scope.
         *
         *     Runs the GraphQL operation `ListServices`.
         */
        get: operations["listServices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/services/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a service
         * @description Needs an API key or a widget token (`admin` has every scope).
         *
         *     Runs the GraphQL operation `GetService`.
         */
        get: operations["getService"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/services/{id}/availability": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List free slots
         * @description Every slot of the service starting on the local days `start_date` … `end_date` (in the service's `timezone`, both inclusive, at most 31 days) that has not started, oldest first, with the places it has (`capacity`) and the places left (`remaining`: `capacity` minus confirmed bookings' and unexpired holds' places).
         *
         *     Slots start at `opens + k × slot_minutes` local time on each season day with opening hours, while the visit (`duration_minutes`) ends by `closes`. On the night clocks go back a repeated local time has two slots; on the night they go forward a missing one has none. A booking, a cancel or a reschedule changes the answer at once, so pages can poll it with `If-None-Match`, or follow it live.
         *
         *     With `Accept: text/event-stream` (preferred to JSON) the answer is a stream of server-sent events instead, one `data:` JSON object per slot, `{ service_id, start_time, end_time, capacity, remaining }`: first every slot of the range that has not started (the current state, so a client that reconnects misses nothing), then each slot whose `remaining` changes, as the change commits (bookings, cancels, reschedules, holds placed, released or expired, waitlist offers, an operator changing the service); a slot taken out of the schedule is sent once with `remaining` 0. The last slot of the first state and of each change carries an `id:` (`avl_…`) naming the state the client then holds: sent back as `Last-Event-ID`, the stream sends nothing first while the range is still in that state, and every slot otherwise. Widget tokens read it too: availability is public.
         *
         *     Needs the `bookings:read` scope or the `bookings:book` scope or a widget token, and an API key or a widget token (`admin` has every scope).
         *
         *     Runs the GraphQL operation `ServiceAvailability`.
         */
        get: operations["getServiceAvailability"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage of the calling key
         * @description Requests, errors, mean latency and bytes of the calling API key per minute, hour or day, and a breakdown per route. Every REST request, GraphQL request and graphql-ws operation of the key counts. Usage is written in batches, so the newest requests appear within one flush interval (10 s by default).
         *
         *     Needs the `analytics:read` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `ViewerUsage`.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/waitlist_entries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List waitlist entries
         * @description The account's entries in the order they joined.
         *
         *     Needs the `bookings:read` scope or the `bookings:write` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `ListWaitlistEntries`.
         */
        get: operations["listWaitlistEntries"];
        put?: never;
        /**
         * Join the waitlist of a slot
         * @description Adds an entry to the line for a slot, typically one that answered 409 `slot_full`. When places are freed (a cancellation, a reschedule away or a smaller party, a hold released or expired, a capacity raised), they are offered in the same transaction (or, for an expiry, within a second): entries are taken in the order they joined, and each one whose party fits in the places free gets an **offer**, a hold of its own for `offer_expires_in_seconds` (60 to 1,800; 600 when left out), announced as the event `waitlist.offered` (webhooks, `GET /v1/booking_events`, subscriptions). An entry larger than what is free keeps its place in line: later entries that fit are offered those places meanwhile, and it is offered first once enough are free.
         *
         *     Book an offer with `POST /v1/bookings` and `{ "hold_id": offer.hold_id }` (the entry's customer is used when `customer` is left out). An offer not booked by its `expires_at` expires the entry, and its places go to the next entries. If places are free when the entry is made, it is answered already `offered`.
         *
         *     `Idempotency-Key` is honoured for 24 h per account (a booking widget token's keys are its own): the same key with the same body answers 201 again with the entry the first request made, as it is now (unlike a booking's replay, with no `Idempotent-Replayed` header), making no other; with another body, or one sent to another create, it gives 422 `idempotency_key_reused`. A retry sent while the first request is still running waits for it. Only successful creates are remembered.
         *
         *     Needs the `bookings:write` scope or the `bookings:book` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `CreateWaitlistEntry`.
         */
        post: operations["createWaitlistEntry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/waitlist_entries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a waitlist entry
         * @description Needs the `bookings:read` scope or the `bookings:write` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `GetWaitlistEntry`.
         */
        get: operations["getWaitlistEntry"];
        put?: never;
        post?: never;
        /**
         * Leave the waitlist
         * @description Withdraws the entry; an offered entry's hold is released and its places offered to the next entries. An entry no longer `waiting` or `offered` is answered as it is: repeating the DELETE is 200.
         *
         *     Needs the `bookings:write` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `WithdrawWaitlistEntry`.
         */
        delete: operations["withdrawWaitlistEntry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description The account's endpoints (not deleted ones), by id, without secrets.
         *
         *     Needs the `webhooks:manage` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `ListWebhookEndpoints`.
         */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Create a webhook endpoint
         * @description Registers a URL to receive the account's booking events (all kinds, or those in `events`), each as a signed `POST` per Standard Webhooks (see the `bookingEvent` webhook). The answer carries the signing `secret`, shown only now.
         *
         *     Deliveries are queued in the transaction that logs the event, so none is lost. A 2xx answer within 10 s ends a delivery; anything else is retried, with the same `webhook-id`, after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (the server’s `WEBHOOK_RETRY_SCHEDULE`), after which the delivery is `failed`. An endpoint is sent its events in log order, one at a time. An endpoint with no successful delivery for 5 days is disabled (`enabled: false`, `disabled_reason`).
         *
         *     Needs the `webhooks:manage` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `CreateWebhookEndpoint`.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook endpoint
         * @description The endpoint, without its secret.
         *
         *     Needs the `webhooks:manage` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `GetWebhookEndpoint`.
         */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description It receives nothing more; its pending deliveries become `failed`.
         *
         *     Needs the `webhooks:manage` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `DeleteWebhookEndpoint`.
         */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint
         * @description Changes the URL, kinds, description or `enabled`. Deliveries already queued keep going to the endpoint, at its new URL.
         *
         *     Needs the `webhooks:manage` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `UpdateWebhookEndpoint`.
         */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an endpoint's deliveries
         * @description The endpoint's deliveries, newest first, each with its attempts (status or error, duration).
         *
         *     Needs the `webhooks:manage` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `ListWebhookDeliveries`.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}/deliveries/{delivery_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again
         * @description Queues a `succeeded` or `failed` delivery for another attempt now (after the endpoint's delivery being sent, if one is: an endpoint receives one at a time), with the same `webhook-id` and the same body (a new timestamp and signature). A test event is attempted once again, never retried.
         *
         *     Needs the `webhooks:manage` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `RedeliverWebhookDelivery`.
         */
        post: operations["redeliverWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}/rotate_secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook endpoint's secret
         * @description Makes a new signing secret, shown only in this answer. For the next 24 h every delivery carries two signatures in `webhook-signature` (new secret and old), so the receiver can switch at its own pace; then only the new one. One old secret signs at a time: rotating again within the 24 h makes the secret just replaced the old one, and the one before stops signing at once (what a leaked secret calls for).
         *
         *     Needs the `webhooks:manage` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `RotateWebhookEndpointSecret`.
         */
        post: operations["rotateWebhookEndpointSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send the endpoint a test event
         * @description Sends the endpoint, now, one signed example event of the kind in `event`: a body of exactly the shape a real event of that kind has (fresh example ids that name no record), plus a top-level `"test": true`, inside the signed body. Its `webhook-id` is a fresh `msg_…`.
         *
         *     It goes through the delivery code real events take (signature, address checks, the 10 s deadline) and takes its turn as they do: while a delivery to the endpoint is being sent, it is refused with 409 `endpoint_busy`. It is recorded as a delivery of this endpoint (`test: true` in the list), attempted once and never retried. A disabled endpoint takes tests too, to try a receiver before enabling it again. It never enters the booking log: `GET /v1/booking_events`, subscriptions and the other endpoints never see it. Booking kinds also need the `bookings:read` scope, as an endpoint receiving them does; the endpoint must take the kind (its `events` empty or listing it).
         *
         *     Needs the `webhooks:manage` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `SendTestWebhook`.
         */
        post: operations["sendTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    bookingEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A booking event, delivered to your endpoint
         * @description One `POST` per event and endpoint, signed per Standard Webhooks (verify with any Standard Webhooks library and the endpoint's `whsec_…` secret; refuse timestamps far from now). The body is the event exactly as `GET /v1/booking_events` lists it.
         *
         *     - Answer 2xx within 10 s to end the delivery. Anything else, or no answer in time, is retried with the same `webhook-id` after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (configurable on the server with `WEBHOOK_RETRY_SCHEDULE`); after the last, the delivery is `failed`.
         *     - Delivery is at least once: after a crash or a timeout the same `webhook-id` may come again, so deduplicate on it. Each endpoint gets its events in log order.
         *     - An endpoint without a successful delivery for 5 days is disabled.
         *     - Redirects are not followed. Hosts resolving to private, loopback or link-local addresses are refused at every attempt, on the address actually connected to.
         *     - A test event (`POST /v1/webhook_endpoints/{id}/test`) has the same body plus a top-level `"test": true`; no event of the log carries `test`.
         */
        post: operations["receiveBookingEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    waitlistOffered: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A waitlist offer, delivered to your endpoint
         * @description Sent to endpoints whose `events` include `waitlist.offered` (or are empty) when freed places are offered to one of the account's waitlist entries: `data` is the entry, its `offer.hold_id` the hold to book before `offer.expires_at`. Signed, ordered and retried exactly like booking events; the same body is in `GET /v1/booking_events` and on subscriptions.
         */
        post: operations["receiveWaitlistOffer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    usageAlert: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A usage alert of one of the account's keys, delivered to your endpoint
         * @description Sent to endpoints whose `events` include `api_key.usage_alert` (or are empty), signed and retried exactly like booking events, in order with them.
         */
        post: operations["receiveUsageAlert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        AdminAccount: {
            /** @example acct_4Nq2hXb8Yw1cVt0Rz9LmPe */
            id: string;
            name: string;
            created_at: components["schemas"]["DateTime"];
        };
        AdminApiKey: {
            /** @example key_7Hc2Vb9Qx0LmNw3Rt8YsKd */
            id: string;
            account_id: string;
            name: string | null;
            plan: components["schemas"]["Plan"];
            /** @description `admin` implies every other scope. */
            scopes: ("bookings:read" | "bookings:write" | "bookings:book" | "webhooks:manage" | "directory:read" | "analytics:read" | "admin")[];
            /** @description Origins whose browser pages may call with this key (CORS). Requests from other origins get 403 `origin_not_allowed`. */
            allowed_origins: string[];
            /** @description IPv4 and IPv6 addresses or CIDRs (IPv4 as four decimal numbers: `010.0.0.1` is refused); empty allows any address. Others get 403 `ip_not_allowed`. */
            ip_allowlist: string[];
            /** @description Unlimited until 2027-07-31 23:59:59 America/Chicago (2027-08-01T04:59:59Z), then the plan's limit. */
            promo: boolean;
            /** @description Unsigned requests get 401 `invalid_signature`. */
            require_signature: boolean;
            /** @description The key has a signing secret and may sign requests (X-Signature). */
            signing_enabled: boolean;
            created_at: components["schemas"]["DateTime"];
            expires_at: components["schemas"]["DateTime"] | null;
            revoked_at: components["schemas"]["DateTime"] | null;
        };
        AdminIssuedApiKey: {
            /** @example key_7Hc2Vb9Qx0LmNw3Rt8YsKd */
            id: string;
            account_id: string;
            name: string | null;
            plan: components["schemas"]["Plan"];
            /** @description `admin` implies every other scope. */
            scopes: ("bookings:read" | "bookings:write" | "bookings:book" | "webhooks:manage" | "directory:read" | "analytics:read" | "admin")[];
            /** @description Origins whose browser pages may call with this key (CORS). Requests from other origins get 403 `origin_not_allowed`. */
            allowed_origins: string[];
            /** @description IPv4 and IPv6 addresses or CIDRs (IPv4 as four decimal numbers: `010.0.0.1` is refused); empty allows any address. Others get 403 `ip_not_allowed`. */
            ip_allowlist: string[];
            /** @description Unlimited until 2027-07-31 23:59:59 America/Chicago (2027-08-01T04:59:59Z), then the plan's limit. */
            promo: boolean;
            /** @description Unsigned requests get 401 `invalid_signature`. */
            require_signature: boolean;
            /** @description The key has a signing secret and may sign requests (X-Signature). */
            signing_enabled: boolean;
            created_at: components["schemas"]["DateTime"];
            expires_at: components["schemas"]["DateTime"] | null;
            revoked_at: components["schemas"]["DateTime"] | null;
            /**
             * @description The whole credential, `<KEY_ID>.<SECRET>`, for `Authorization: Bearer …`.
             * @example key_7Hc2Vb9Qx0LmNw3Rt8YsKd.sk_Q3xZ…
             */
            key: string;
            /** @description HMAC signing secret (`hs_…`) where signing is on (enterprise keys), else null. */
            signing_secret: string | null;
        };
        AdminWidgetToken: {
            /** @description The token itself (`wt_…`); it is public and goes into the widget's `token` option. */
            id: string;
            account_id: string;
            name: string | null;
            /** @description The only origins the token works from. */
            allowed_origins: string[];
            rate_limit_per_minute: number;
            /** @description Also holds, books a hold and joins waitlists (scope bookings:book). */
            allow_booking: boolean;
            created_at: components["schemas"]["DateTime"];
            revoked_at: components["schemas"]["DateTime"] | null;
        };
        /** @description Where an attraction is, in WGS 84 degrees. */
        AttractionLocationInput: {
            /** @description From -90 to 90. */
            latitude: number;
            /** @description From -180 to 180. */
            longitude: number;
        };
        Booking: {
            /** @example bk_3Jd9QkZp1Xc7Vb2Nm8LtRw */
            id: string;
            status: components["schemas"]["BookingStatus"];
            start_time: components["schemas"]["DateTime"];
            /** @description startTime plus the duration of the service when the slot was booked. */
            end_time: components["schemas"]["DateTime"];
            /** @description Places the booking takes in its slot. */
            party_size: number;
            /** @example svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc */
            service_id: string;
            customer: {
                /** @example Ada Lovelace */
                name: string;
                /** @example ada@example.com */
                email: string;
            };
            created_at: components["schemas"]["DateTime"];
            updated_at: components["schemas"]["DateTime"];
            cancelled_at: components["schemas"]["DateTime"] | null;
        };
        /** @description One event of the log (a booking change, or a waitlist offer), the same body webhooks deliver. */
        BookingEvent: {
            /** @example msg_2Wq8Ls1Df6Gh0Jk4Za9Xc */
            id: string;
            /**
             * @description booking.created, booking.updated, booking.cancelled or waitlist.offered, as in webhooks.
             * @enum {string}
             */
            event: "booking.created" | "booking.updated" | "booking.cancelled" | "waitlist.offered";
            created: components["schemas"]["DateTime"];
            /** @description booking.*: the booking as it was after the change. `booking.updated` adds `previous_attributes` (the fields that changed, with their values before); `booking.cancelled` adds `cancellation` (`by`: the `key_…` id, or `operator`; `reason`: the client's, or null). waitlist.offered: the waitlist entry as offered, its `offer` holding the `hold_id` to book and its `expires_at`. */
            data: components["schemas"]["BookingEventData"] | components["schemas"]["WaitlistOfferData"];
        };
        BookingEventData: {
            /** @example bk_3Jd9QkZp1Xc7Vb2Nm8LtRw */
            id: string;
            status: components["schemas"]["BookingStatus"];
            start_time: components["schemas"]["DateTime"];
            /** @description startTime plus the duration of the service when the slot was booked. */
            end_time: components["schemas"]["DateTime"];
            /** @description Places the booking takes in its slot. */
            party_size: number;
            /** @example svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc */
            service_id: string;
            customer: {
                /** @example Ada Lovelace */
                name: string;
                /** @example ada@example.com */
                email: string;
            };
            created_at: components["schemas"]["DateTime"];
            updated_at: components["schemas"]["DateTime"];
            cancelled_at: components["schemas"]["DateTime"] | null;
            /** @description booking.updated only: the fields that changed, with their values before the change. */
            previous_attributes?: {
                /** @example bk_3Jd9QkZp1Xc7Vb2Nm8LtRw */
                id?: string;
                status?: components["schemas"]["BookingStatus"];
                start_time?: components["schemas"]["DateTime"];
                /** @description startTime plus the duration of the service when the slot was booked. */
                end_time?: components["schemas"]["DateTime"];
                /** @description Places the booking takes in its slot. */
                party_size?: number;
                /** @example svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc */
                service_id?: string;
                customer?: {
                    /** @example Ada Lovelace */
                    name?: string;
                    /** @example ada@example.com */
                    email?: string;
                };
                created_at?: components["schemas"]["DateTime"];
                updated_at?: components["schemas"]["DateTime"];
                cancelled_at?: components["schemas"]["DateTime"] | null;
            };
            /** @description booking.cancelled only: who cancelled and why. */
            cancellation?: {
                /** @description The `key_…` id of the key that cancelled, or `operator` for an admin key. */
                by: string;
                /** @description The reason the client sent, or null. */
                reason: string | null;
            };
        };
        /**
         * @description `confirmed` → `cancelled` is the only transition; `cancelled` is final.
         * @enum {string}
         */
        BookingStatus: "cancelled" | "confirmed";
        /** @description Optional; the reason is carried by `booking.cancelled`. */
        CancelBookingInput: {
            /** @description Why, in at most 500 characters; booking.cancelled carries it. */
            reason?: string;
        };
        CreateAccountInput: {
            name: string;
        };
        CreateApiKeyInput: {
            account_id: string;
            /** @description Origins (https://shop.example) that may call with this key from a browser. */
            allowed_origins?: string[];
            /** @description IPv4 and IPv6 addresses or CIDRs (IPv4 as four decimal numbers: 010.0.0.1 is refused); empty allows any address. */
            ip_allowlist?: string[];
            name?: string;
            plan: components["schemas"]["Plan"];
            /** @description Unlimited until 2027-07-31 23:59:59 America/Chicago, then the plan limit. */
            promo?: boolean;
            /** @description Only on the enterprise plan. */
            require_signature?: boolean;
            /** @description At least one; `admin` implies every other scope. */
            scopes: ("bookings:read" | "bookings:write" | "bookings:book" | "webhooks:manage" | "directory:read" | "analytics:read" | "admin")[];
        };
        /** @description A slot (serviceId, startTime, partySize) and a customer; or holdId alone, whose places it takes, and the customer unless the hold is a waitlist offer. */
        CreateBookingInput: {
            /** @description Required, but with a waitlist offer's hold: its entry's customer. */
            customer?: {
                email: string;
                name: string;
            };
            /** @description A `hold_…` id of the account, instead of `service_id`, `start_time` and `party_size`: the booking takes its places; 409 `hold_expired` when it is no longer held. */
            hold_id?: string;
            /** @description Places to take in the slot: 1 (the default) up to the capacity of the service. */
            party_size?: number;
            /** @description A `svc_…` id; an unknown one gives 422 naming `service_id`. */
            service_id?: string;
            /** @description A start time of the service: not in the past and at most 731 days ahead. */
            start_time?: components["schemas"]["DateTime"];
        };
        CreateHoldInput: {
            /** @description 60 to 1,800; 600 when left out. */
            expires_in_seconds?: number;
            /** @description Places to hold: 1 (the default) up to the capacity of the service. */
            party_size?: number;
            service_id: string;
            /** @description A slot of the service that has not started. */
            start_time: components["schemas"]["DateTime"];
        };
        CreateServiceInput: {
            attraction_id: string;
            /** @description Places per slot. */
            capacity: number;
            /** @description Length of one visit; every opening must be at least this long. */
            duration_minutes: number;
            name: string;
            opening_hours: {
                /** @description Local time, HH:MM; earlier than opens means after midnight. */
                closes: string;
                /** @description Local time, HH:MM. */
                opens: string;
                /** @description ISO weekday: 1 = Monday … 7 = Sunday. */
                weekday: number;
            }[];
            /** @description Last local day of the season, not before seasonStart. */
            season_end: components["schemas"]["Date"];
            /** @description First local day of the season. */
            season_start: components["schemas"]["Date"];
            /** @description Minutes between two slot starts, 5 to 1440. */
            slot_minutes: number;
            /** @description The attraction's IANA time zone, such as America/Chicago. */
            timezone: string;
        };
        CreateWaitlistEntryInput: {
            customer: {
                email: string;
                name: string;
            };
            /** @description How long an offer's hold lasts: 60 to 1,800; 600 when left out. */
            offer_expires_in_seconds?: number;
            /** @description Places wanted: 1 (the default) up to the capacity of the service. */
            party_size?: number;
            service_id: string;
            /** @description A slot of the service that has not started. */
            start_time: components["schemas"]["DateTime"];
        };
        CreateWebhookEndpointInput: {
            /** @description At most 500 characters. */
            description?: string;
            /** @description Kinds to deliver; left out or empty means all. */
            events?: ("booking.created" | "booking.updated" | "booking.cancelled" | "waitlist.offered" | "api_key.usage_alert")[];
            /** @description `https` (or `http`), without credentials, at most 2,048 characters. A host that does not resolve to a public address gives 422 (unless the server runs with `WEBHOOK_ALLOW_PRIVATE=1`), the same answer whether it does not resolve at all or resolves to a private, loopback or link-local address. */
            url: string;
        };
        CreateWidgetTokenInput: {
            account_id: string;
            /** @description The widget may also hold, release a hold, book a hold and join a waitlist (scope bookings:book); never read or change bookings. Every widget token reads services and their availability. */
            allow_booking?: boolean;
            /** @description At least one: the only origins the token works from. */
            allowed_origins: string[];
            name?: string;
            /** @description 1 to 1,000,000; 600 when left out. */
            rate_limit_per_minute?: number;
        };
        /**
         * Format: date
         * @description A calendar date, `YYYY-MM-DD`.
         */
        Date: string;
        /**
         * Format: date-time
         * @description ISO 8601 in UTC with `Z` and seconds (`2027-10-31T19:00:00Z`); no other offset, and a real calendar date.
         */
        DateTime: string;
        FieldError: {
            /** @description The query parameter, or the dotted snake_case path in the body (`customer.email`). */
            field: string;
            /**
             * @example required
             * @example invalid
             * @example unknown_field
             */
            code: string;
            message: string;
        };
        Hold: {
            id: string;
            service_id: string;
            start_time: components["schemas"]["DateTime"];
            end_time: components["schemas"]["DateTime"];
            party_size: number;
            expires_at: components["schemas"]["DateTime"];
            status: components["schemas"]["HoldStatus"];
            /** @description The booking made with it, once CONVERTED. */
            booking_id: string | null;
            created_at: components["schemas"]["DateTime"];
        };
        /**
         * @description HELD until expiresAt, then EXPIRED; RELEASED by its holder; CONVERTED into a booking.
         * @enum {string}
         */
        HoldStatus: "converted" | "expired" | "held" | "released";
        /**
         * @description Requests per minute: free 100, pro 1,000, business 10,000, enterprise 10,000 (and HMAC signing).
         * @enum {string}
         */
        Plan: "business" | "enterprise" | "free" | "pro";
        /** @description RFC 9457 problem details. */
        Problem: {
            /** Format: uri */
            type: string;
            title: string;
            status: number;
            detail: string;
            /**
             * @description Stable snake_case error code.
             * @enum {string}
             */
            code: "booking_cancelled" | "delivery_pending" | "endpoint_busy" | "endpoint_disabled" | "expectation_failed" | "headers_too_large" | "hold_expired" | "idempotency_key_in_use" | "idempotency_key_reused" | "insufficient_scope" | "internal_error" | "invalid_json" | "invalid_parameter" | "invalid_request" | "invalid_signature" | "ip_not_allowed" | "key_revoked" | "method_not_allowed" | "not_acceptable" | "not_found" | "origin_not_allowed" | "payload_too_large" | "precondition_failed" | "query_too_complex" | "rate_limited" | "replayed_request" | "request_timeout" | "service_unavailable" | "signature_expired" | "slot_full" | "too_many_alert_rules" | "too_many_endpoints" | "too_many_holds" | "too_many_subscriptions" | "too_many_waitlist_entries" | "unauthenticated" | "unsupported_media_type" | "uri_too_long" | "validation_failed";
            /** @description The `X-Request-Id` of the request. */
            request_id: string;
            errors?: components["schemas"]["FieldError"][];
        };
        SendTestWebhookInput: {
            /**
             * @description The kind of event to send; `booking.created` when left out (or when there is no body).
             * @enum {string}
             */
            event?: "booking.created" | "booking.updated" | "booking.cancelled" | "waitlist.offered" | "api_key.usage_alert";
        };
        Service: {
            /** @example svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc */
            id: string;
            /** @example Timed entry, 19:00 */
            name: string;
            attraction_id: string;
            duration_minutes: number;
            /** @description Places (party sizes of confirmed bookings and unexpired holds) per slot. */
            capacity: number;
            /** @description The attraction's IANA time zone; opening hours and season are in its local time. */
            timezone: string;
            /** @description Minutes between two slot starts. */
            slot_minutes: number;
            /** @description First day of the season, local, inclusive. */
            season_start: components["schemas"]["Date"];
            /** @description Last day of the season, local, inclusive. */
            season_end: components["schemas"]["Date"];
            opening_hours: {
                /** @description ISO weekday: 1 = Monday … 7 = Sunday; the day the opening opens on. */
                weekday: number;
                /** @description Local time, HH:MM. */
                opens: string;
                /** @description Local time, HH:MM; earlier than opens means after midnight. */
                closes: string;
            }[];
        };
        /** @description Any of the fields; the ones left out keep their values. A change of slot must find a free place there. */
        UpdateBookingInput: {
            /** @description The customer fields to change; those left out stay. */
            customer?: {
                email?: string;
                name?: string;
            };
            /** @description Places to take instead, up to the capacity of the service. */
            party_size?: number;
            service_id?: string;
            /** @description A slot of the service that has not started. */
            start_time?: components["schemas"]["DateTime"];
        };
        /** @description At least one field; those left out stay. Confirmed bookings keep their slot whatever changes. */
        UpdateServiceInput: {
            attraction_id?: string;
            capacity?: number;
            duration_minutes?: number;
            name?: string;
            /** @description Replaces every opening. */
            opening_hours?: {
                /** @description Local time, HH:MM; earlier than opens means after midnight. */
                closes: string;
                /** @description Local time, HH:MM. */
                opens: string;
                /** @description ISO weekday: 1 = Monday … 7 = Sunday. */
                weekday: number;
            }[];
            season_end?: components["schemas"]["Date"];
            season_start?: components["schemas"]["Date"];
            slot_minutes?: number;
            timezone?: string;
        };
        /** @description Any of the fields; the ones left out keep their values. */
        UpdateWebhookEndpointInput: {
            description?: string;
            /** @description `true` also clears the failure streak that disabled the endpoint. */
            enabled?: boolean;
            events?: ("booking.created" | "booking.updated" | "booking.cancelled" | "waitlist.offered" | "api_key.usage_alert")[];
            /** @description Checked as on creation. */
            url?: string;
        };
        /** @description An alert rule of one of the account's keys fired; sent once per rule and window. */
        UsageAlertEvent: {
            /** @description A `msg_…` id, the webhook-id. */
            id: string;
            /** @constant */
            event: "api_key.usage_alert";
            created: components["schemas"]["DateTime"];
            data: {
                /** @description The `ual_…` alert, as listed by `viewer { usageAlerts }`. */
                id: string;
                api_key_id: string;
                rule_id: string;
                /** @enum {string} */
                metric: "rate_limit_share" | "daily_requests" | "error_rate";
                threshold: number;
                /** @description How long the window is, in minutes, as the rule’s `windowMinutes` says: the one chosen for error_rate, 1 for rate_limit_share (the minute), 1440 for daily_requests (the UTC day). */
                window_minutes: number;
                /** @description The measure that reached the threshold: a share from 0 to 1, or a number of requests. */
                value: number;
                window_start: components["schemas"]["DateTime"];
                window_end: components["schemas"]["DateTime"];
                created_at: components["schemas"]["DateTime"];
            };
        };
        /**
         * @description Length of each bucket (UTC hours and days). A range may hold at most 1,500 buckets.
         * @enum {string}
         */
        UsageGranularity: "day" | "hour" | "minute";
        UsageReport: {
            /** @example key_4Nq2hXb8Yw1cVt0Rz9LmPe */
            api_key_id: string;
            from: components["schemas"]["DateTime"];
            to: components["schemas"]["DateTime"];
            granularity: components["schemas"]["UsageGranularity"];
            /** @description Every period of the range, oldest first, empty ones included. */
            buckets: {
                /** @description Start of the minute, hour or day. */
                start: components["schemas"]["DateTime"];
                requests: number;
                /** @description Requests answered with a 4xx or 5xx status. */
                errors: number;
                /** @description Mean time from request to last byte sent; 0 without requests. */
                average_latency_ms: number;
                /** @description Response body bytes. */
                bytes: number;
            }[];
            /** @description Totals per route, busiest first: at most 200, the quietest summed as "other". */
            routes: {
                /**
                 * @description A REST route template (`GET /v1/bookings/:id`), `graphql:<operationName>` (`graphql:anonymous` without a name), or `unmatched`.
                 * @example GET /api/v1/events
                 */
                route: string;
                requests: number;
                /** @description Requests answered with a 4xx or 5xx status. */
                errors: number;
                /** @description Mean time from request to last byte sent; 0 without requests. */
                average_latency_ms: number;
                /** @description Response body bytes. */
                bytes: number;
            }[];
        };
        WaitlistEntry: {
            id: string;
            service_id: string;
            start_time: components["schemas"]["DateTime"];
            party_size: number;
            customer: {
                /** @example Ada Lovelace */
                name: string;
                /** @example ada@example.com */
                email: string;
            };
            status: components["schemas"]["WaitlistStatus"];
            /** @description The last offer made to the entry; null before the first. */
            offer: {
                hold_id: string;
                expires_at: components["schemas"]["DateTime"];
            } | null;
            created_at: components["schemas"]["DateTime"];
        };
        WaitlistOfferData: {
            id: string;
            service_id: string;
            start_time: components["schemas"]["DateTime"];
            party_size: number;
            customer: {
                /** @example Ada Lovelace */
                name: string;
                /** @example ada@example.com */
                email: string;
            };
            status: components["schemas"]["WaitlistStatus"];
            /** @description The last offer made to the entry; null before the first. */
            offer: {
                hold_id: string;
                expires_at: components["schemas"]["DateTime"];
            } | null;
            created_at: components["schemas"]["DateTime"];
        };
        /**
         * @description WAITING in line; OFFERED a hold; BOOKED with it; EXPIRED (the offer lapsed, or the slot started); WITHDRAWN by its holder.
         * @enum {string}
         */
        WaitlistStatus: "booked" | "expired" | "offered" | "waiting" | "withdrawn";
        WebhookDelivery: {
            /** @example whd_1Pz6Nw4Kc8Xq2Vb0Lm7RtY */
            id: string;
            /** @description The msg_… id: the webhook-id header of every attempt. */
            event_id: string;
            /** @enum {string} */
            event: "booking.created" | "booking.updated" | "booking.cancelled" | "waitlist.offered" | "api_key.usage_alert";
            /** @description `true` for a test event sent by `POST /v1/webhook_endpoints/{id}/test`; its body carries `"test": true`. */
            test: boolean;
            status: components["schemas"]["WebhookDeliveryStatus"];
            attempt_count: number;
            /** @description When `pending`: the next attempt. */
            next_attempt_at: components["schemas"]["DateTime"] | null;
            created_at: components["schemas"]["DateTime"];
            completed_at: components["schemas"]["DateTime"] | null;
            attempts: {
                attempt_number: number;
                started_at: components["schemas"]["DateTime"];
                duration_ms: number | null;
                /** @description The receiver's HTTP status; `null` when it gave none (timeout, refused connection). */
                response_status: number | null;
                /** @description Why no answer came, when none did. */
                error: string | null;
            }[];
        };
        /**
         * @description `succeeded` after a 2xx; `failed` after the last retry (or when the endpoint was deleted).
         * @enum {string}
         */
        WebhookDeliveryStatus: "failed" | "pending" | "succeeded";
        WebhookEndpoint: {
            /** @example we_5Tg8Kp2Xc0Vn7Lq3Rm9WsB */
            id: string;
            /** @example https://shop.example/hooks/hallowgate */
            url: string;
            description: string | null;
            /** @description The kinds delivered; empty means all. */
            events: ("booking.created" | "booking.updated" | "booking.cancelled" | "waitlist.offered" | "api_key.usage_alert")[];
            /** @description `false` after 5 days of failed deliveries, at once after a `410 Gone` answer (or when set so); `PATCH {"enabled": true}` re-enables it. While `false` nothing is sent: the deliveries queued before wait, `pending`, and are sent at once, in log order, when it is re-enabled. */
            enabled: boolean;
            /** @description Why the service disabled the endpoint. */
            disabled_reason: string | null;
            created_at: components["schemas"]["DateTime"];
            updated_at: components["schemas"]["DateTime"];
        };
        WebhookEndpointWithSecret: {
            /** @example we_5Tg8Kp2Xc0Vn7Lq3Rm9WsB */
            id: string;
            /** @example https://shop.example/hooks/hallowgate */
            url: string;
            description: string | null;
            /** @description The kinds delivered; empty means all. */
            events: ("booking.created" | "booking.updated" | "booking.cancelled" | "waitlist.offered" | "api_key.usage_alert")[];
            /** @description `false` after 5 days of failed deliveries, at once after a `410 Gone` answer (or when set so); `PATCH {"enabled": true}` re-enables it. While `false` nothing is sent: the deliveries queued before wait, `pending`, and are sent at once, in log order, when it is re-enabled. */
            enabled: boolean;
            /** @description Why the service disabled the endpoint. */
            disabled_reason: string | null;
            created_at: components["schemas"]["DateTime"];
            updated_at: components["schemas"]["DateTime"];
            /**
             * @description The Standard Webhooks signing secret (`whsec_` and 32 random bytes in base64). Shown only in this answer.
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
        };
    };
    responses: {
        /** @description A query parameter is malformed, repeated or names something unknown (`invalid_parameter`, `errors` naming it), or the body is not JSON (`invalid_json`). */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `not_found`: no such record in this account. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The representation matches the validator sent (`If-None-Match`, `If-Modified-Since`); no body. */
        NotModified: {
            headers: {
                ETag: components["headers"]["ETag"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content?: never;
        };
        /** @description `payload_too_large`: the body is over the size limit. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `service_unavailable`: the database is busy or unreachable; nothing was changed. Retry after `Retry-After` seconds. */
        ServiceUnavailable: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `rate_limited`: over the credential’s per-minute limit. */
        TooManyRequests: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description No credential, or one that is malformed, unknown, revoked or expired (`unauthenticated`), or a bad request signature (`invalid_signature`, `signature_expired`, `replayed_request`). */
        Unauthorized: {
            headers: {
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `validation_failed`: `errors` names each field, in the body’s snake_case (`unknown_field` for a key the body may not have). */
        UnprocessableContent: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `unsupported_media_type`: the body is not `application/json`. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
    };
    parameters: {
        /** @description The `next_cursor` of the previous page. */
        Cursor: string;
        /** @description An HTTP date; answers 304 when nothing in the answer is newer. */
        IfModifiedSince: string;
        /** @description ETags received earlier; a match answers 304. */
        IfNoneMatch: string;
        /** @description With `Accept: text/event-stream`: the last `id:` the stream sent, to resume from (EventSource sends it when it reconnects). */
        LastEventId: string;
        /** @description Page size. */
        Limit: number;
        /** @description The event's `msg_…` id, the same on every retry and redelivery; receivers deduplicate on it. */
        WebhookId: string;
        /** @description `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_` (Standard Webhooks). For 24 h after a rotation there are two, separated by a space: one with the new secret and one with the old, so a receiver verifies with either. */
        WebhookSignature: string;
        /** @description When this attempt was signed, in whole seconds since the Unix epoch. */
        WebhookTimestamp: string;
    };
    requestBodies: never;
    headers: {
        /** @description `private, max-age=…`: answers differ per credential. */
        "Cache-Control": string;
        /** @description Strong entity tag of the exact body. */
        ETag: string;
        /** @description Newest update time of the records in the answer. */
        "Last-Modified": string;
        /** @description `<…>; rel="next"` when there is a next page. */
        Link: string;
        /** @description Seconds to wait before trying again. */
        "Retry-After": string;
        /** @description A Bearer challenge (RFC 6750) naming the error. */
        "WWW-Authenticate": string;
        /** @description Requests per minute allowed for the credential. */
        "X-RateLimit-Limit": number;
        /** @description Requests left in the current one-minute window. */
        "X-RateLimit-Remaining": number;
        /** @description Unix epoch seconds at which the current window ends. */
        "X-RateLimit-Reset": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listAccounts: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of accounts, ordered by id. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    Link: components["headers"]["Link"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AdminAccount"][];
                        /** @description Another page follows. */
                        has_more: boolean;
                        /** @description The `cursor` of the next page; null on the last. */
                        next_cursor: string | null;
                    };
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Salem Haunts"
                 *     }
                 */
                "application/json": components["schemas"]["CreateAccountInput"];
            };
        };
        responses: {
            /** @description The new account. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminAccount"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                /** @description Only this account's keys. */
                account_id?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of keys (revoked ones included), ordered by id; secrets are never listed. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    Link: components["headers"]["Link"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AdminApiKey"][];
                        /** @description Another page follows. */
                        has_more: boolean;
                        /** @description The `cursor` of the next page; null on the last. */
                        next_cursor: string | null;
                    };
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "account_id": "acct_4Nq2hXb8Yw1cVt0Rz9LmPe",
                 *       "plan": "pro",
                 *       "scopes": [
                 *         "bookings:read",
                 *         "bookings:write"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CreateApiKeyInput"];
            };
        };
        responses: {
            /** @description The key, with `key` (and `signing_secret` where signing is on) shown only now. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminIssuedApiKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key, now revoked. Repeating the call changes nothing. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminApiKey"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rotateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key with its new secret (and new signing secret where signing is on), shown only now. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminIssuedApiKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            /** @description `key_revoked`: a revoked key cannot be rotated. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiKeyUsage: {
        parameters: {
            query: {
                /** @description Start of the range, inclusive. */
                from: components["schemas"]["DateTime"];
                /** @description End of the range, exclusive; after `from`. */
                to: components["schemas"]["DateTime"];
                granularity?: components["schemas"]["UsageGranularity"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description A `key_…` id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The usage report. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageReport"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    placeAttraction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An `at_…` id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "latitude": 42.5195,
                 *       "longitude": -70.8967
                 *     }
                 */
                "application/json": components["schemas"]["AttractionLocationInput"];
            };
        };
        responses: {
            /** @description The attraction at its new place. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        latitude: number | null;
                        longitude: number | null;
                        updated_at: components["schemas"]["DateTime"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createService: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "attraction_id": "att_2Kd9Vx4Tq7Lm1Pz8Rc3Nb",
                 *       "name": "Timed entry",
                 *       "duration_minutes": 30,
                 *       "capacity": 20,
                 *       "timezone": "America/New_York",
                 *       "slot_minutes": 30,
                 *       "season_start": "2027-09-24",
                 *       "season_end": "2027-11-01",
                 *       "opening_hours": [
                 *         {
                 *           "weekday": 5,
                 *           "opens": "19:00",
                 *           "closes": "01:00"
                 *         },
                 *         {
                 *           "weekday": 6,
                 *           "opens": "19:00",
                 *           "closes": "01:00"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CreateServiceInput"];
            };
        };
        responses: {
            /** @description The new service; `Location` is its `GET /v1/services/{id}` URL. */
            201: {
                headers: {
                    /** @description The new record's URL, `/v1/services/{id}`. */
                    Location?: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Service"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateService: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A `svc_…` id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "capacity": 30,
                 *       "opening_hours": [
                 *         {
                 *           "weekday": 6,
                 *           "opens": "18:00",
                 *           "closes": "02:00"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["UpdateServiceInput"];
            };
        };
        responses: {
            /** @description The service after the change. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Service"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWidgetTokens: {
        parameters: {
            query?: {
                /** @description Only this account's tokens. */
                account_id?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tokens, ordered by id. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    Link: components["headers"]["Link"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AdminWidgetToken"][];
                        /** @description Another page follows. */
                        has_more: boolean;
                        /** @description The `cursor` of the next page; null on the last. */
                        next_cursor: string | null;
                    };
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createWidgetToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "account_id": "acct_4Nq2hXb8Yw1cVt0Rz9LmPe",
                 *       "allowed_origins": [
                 *         "https://shop.example"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CreateWidgetTokenInput"];
            };
        };
        responses: {
            /** @description The new token. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The token itself (`wt_…`); it is public and goes into the widget's `token` option. */
                        id: string;
                        account_id: string;
                        name: string | null;
                        /** @description The only origins the token works from. */
                        allowed_origins: string[];
                        rate_limit_per_minute: number;
                        /** @description Also holds, books a hold and joins waitlists (scope bookings:book). */
                        allow_booking: boolean;
                        created_at: components["schemas"]["DateTime"];
                        revoked_at: components["schemas"]["DateTime"] | null;
                        /** @description The token itself (`wt_…`); it is public and goes into the widget's `token` option. */
                        token: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeWidgetToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The token, now revoked. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminWidgetToken"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `admin`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listBookingEvents: {
        parameters: {
            query?: {
                /** @description Only events logged after this `msg_…` event of the account; an unknown id gives 400. */
                after?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description An HTTP date; answers 304 when nothing in the answer is newer. */
                "If-Modified-Since"?: components["parameters"]["IfModifiedSince"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "Last-Modified": components["headers"]["Last-Modified"];
                    Link: components["headers"]["Link"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["BookingEvent"][];
                        /** @description Another page follows. */
                        has_more: boolean;
                        /** @description The `cursor` of the next page; null on the last. */
                        next_cursor: string | null;
                    };
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:read`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listBookings: {
        parameters: {
            query?: {
                /** @description First UTC day (inclusive) on which `start_time` may fall. */
                start_date?: components["schemas"]["Date"];
                /** @description Last UTC day (inclusive); before `start_date` gives 400. */
                end_date?: components["schemas"]["Date"];
                status?: components["schemas"]["BookingStatus"];
                /** @description Only this service's bookings. */
                service_id?: string;
                /** @description Only bookings whose `updated_at` is at or after this UTC time; orders the list by `updated_at`, then id. */
                updated_since?: components["schemas"]["DateTime"];
                /** @description Only bookings whose `created_at` is at or after this UTC time. */
                created_since?: components["schemas"]["DateTime"];
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description An HTTP date; answers 304 when nothing in the answer is newer. */
                "If-Modified-Since"?: components["parameters"]["IfModifiedSince"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of bookings. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "Last-Modified": components["headers"]["Last-Modified"];
                    Link: components["headers"]["Link"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Booking"][];
                        /** @description Another page follows. */
                        has_more: boolean;
                        /** @description The `cursor` of the next page; null on the last. */
                        next_cursor: string | null;
                    };
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:read`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 visible ASCII characters chosen by the client, e.g. a UUID. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "service_id": "svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc",
                 *       "start_time": "2027-10-31T19:00:00Z",
                 *       "party_size": 2,
                 *       "customer": {
                 *         "name": "Ada Lovelace",
                 *         "email": "ada@example.com"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CreateBookingInput"];
            };
        };
        responses: {
            /** @description The booking, `confirmed`. */
            201: {
                headers: {
                    /** @description The new record's URL, `/v1/bookings/{id}`. */
                    Location?: string;
                    /** @description `true` when the answer replays an earlier request with the same `Idempotency-Key`. */
                    "Idempotent-Replayed"?: "true";
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Booking"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:write` or `bookings:book`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `slot_full`: the slot has fewer places left than `party_size`. `hold_expired`: the `hold_id` names a hold that expired, was released or was booked already. `idempotency_key_in_use`: in the rare case that an earlier request with the key vanished mid-way. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description `validation_failed`: `errors` names each field, in the body’s snake_case (`unknown_field` for a key the body may not have). `idempotency_key_reused`: the `Idempotency-Key` came before with another body (or on another create). */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description An HTTP date; answers 304 when nothing in the answer is newer. */
                "If-Modified-Since"?: components["parameters"]["IfModifiedSince"];
            };
            path: {
                /** @description A `bk_…` id of the caller's account; any other gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The booking. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "Last-Modified": components["headers"]["Last-Modified"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Booking"];
                };
            };
            304: components["responses"]["NotModified"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:read`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    cancelBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description The `ETag` a GET of the booking answered (or `*`, any): if the booking changed since, 412 `precondition_failed` and nothing changes. Compared strongly: a weak tag never matches. */
                "If-Match"?: string;
            };
            path: {
                /** @description A `bk_…` id of the caller's account; any other gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "reason": "The customer called: plans changed."
                 *     }
                 */
                "application/json": components["schemas"]["CancelBookingInput"];
            };
        };
        responses: {
            /** @description The booking, now `cancelled`. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Booking"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:write`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            /** @description `precondition_failed`: the booking changed since the ETag sent in `If-Match`. */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description The `ETag` a GET of the booking answered (or `*`, any): if the booking changed since, 412 `precondition_failed` and nothing changes. Compared strongly: a weak tag never matches. */
                "If-Match"?: string;
            };
            path: {
                /** @description A `bk_…` id of the caller's account; any other gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "start_time": "2027-10-31T20:00:00Z"
                 *     }
                 */
                "application/json": components["schemas"]["UpdateBookingInput"];
            };
        };
        responses: {
            /** @description The booking after the change. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Booking"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:write`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            /** @description `booking_cancelled`: a cancelled booking never changes. `slot_full`: the slot has fewer places left than `party_size`. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `precondition_failed`: the booking changed since the ETag sent in `If-Match`. */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createHold: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 visible ASCII characters chosen by the client, e.g. a UUID. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "service_id": "svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc",
                 *       "start_time": "2027-10-31T19:00:00Z",
                 *       "party_size": 2,
                 *       "expires_in_seconds": 300
                 *     }
                 */
                "application/json": components["schemas"]["CreateHoldInput"];
            };
        };
        responses: {
            /** @description The hold, `held`, with `expires_at`. */
            201: {
                headers: {
                    /** @description The new record's URL, `/v1/holds/{id}`. */
                    Location?: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Hold"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:write` or `bookings:book`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `slot_full`: the slot has fewer places left than `party_size`. `idempotency_key_in_use`: in the rare case that an earlier request with the key vanished mid-way. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description `validation_failed`: `errors` names each field, in the body’s snake_case (`unknown_field` for a key the body may not have). `too_many_holds`: the account has 1,000 holds held already (its waitlist offers included), or the booking widget token 100. `idempotency_key_reused`: the `Idempotency-Key` came before with another body (or on another create). */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getHold: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description A `hold_…` id of the caller's account; any other gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hold. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Hold"];
                };
            };
            304: components["responses"]["NotModified"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:read` or `bookings:write`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    releaseHold: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A `hold_…` id of the caller's account; any other gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hold, `released` (or as it was). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Hold"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:write` or `bookings:book`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getBookingServiceOpenApi: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            304: components["responses"]["NotModified"];
            /** @description An `Authorization` header was sent and is not a valid credential; send none, or a valid one. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A credential was sent and is over its per-minute limit, or the address sent too many invalid ones. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listServices: {
        parameters: {
            query?: {
                /** @description Only this attraction's services. */
                attraction_id?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of services. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    Link: components["headers"]["Link"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Service"][];
                        /** @description Another page follows. */
                        has_more: boolean;
                        /** @description The `cursor` of the next page; null on the last. */
                        next_cursor: string | null;
                    };
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: a widget token asked for more than the directory; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getService: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description A `svc_…` id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The service. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Service"];
                };
            };
            304: components["responses"]["NotModified"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: a widget token asked for more than the directory; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getServiceAvailability: {
        parameters: {
            query: {
                /** @description First local day, `YYYY-MM-DD` in the service's time zone. */
                start_date: components["schemas"]["Date"];
                /** @description Last local day (inclusive); before `start_date`, or more than 31 days after it, gives 400. */
                end_date: components["schemas"]["Date"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description With `Accept: text/event-stream`: the last `id:` the stream sent, to resume from (EventSource sends it when it reconnects). */
                "Last-Event-ID"?: components["parameters"]["LastEventId"];
            };
            path: {
                /** @description A `svc_…` id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{ service_id, timezone, data }`: the slots, each `{ start_time, end_time, capacity, remaining }`. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc */
                        service_id: string;
                        /** @description The attraction's IANA time zone; opening hours and season are in its local time. */
                        timezone: string;
                        /** @description The slots starting on the local days startDate … endDate (at most 31) that have not started, oldest first. */
                        data: {
                            start_time: components["schemas"]["DateTime"];
                            /** @description startTime plus the duration of the service. */
                            end_time: components["schemas"]["DateTime"];
                            capacity: number;
                            /** @description capacity minus the places (party sizes) of confirmed bookings and of holds not expired. */
                            remaining: number;
                        }[];
                    };
                    "text/event-stream": string;
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:read` or `bookings:book`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getUsage: {
        parameters: {
            query: {
                /** @description Start of the range, inclusive. */
                from: components["schemas"]["DateTime"];
                /** @description End of the range, exclusive; after `from`. */
                to: components["schemas"]["DateTime"];
                granularity?: components["schemas"]["UsageGranularity"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The usage report. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageReport"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `analytics:read`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWaitlistEntries: {
        parameters: {
            query?: {
                /** @description Only this service's entries. */
                service_id?: string;
                /** @description Only entries in this status, as it reads now (an offer past its `expires_at` is `expired`). */
                status?: components["schemas"]["WaitlistStatus"];
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of entries. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    Link: components["headers"]["Link"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WaitlistEntry"][];
                        /** @description Another page follows. */
                        has_more: boolean;
                        /** @description The `cursor` of the next page; null on the last. */
                        next_cursor: string | null;
                    };
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:read` or `bookings:write`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createWaitlistEntry: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 visible ASCII characters chosen by the client, e.g. a UUID. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "service_id": "svc_8Fh2Lq0Wz5Xn3Pr7Tb1Kc",
                 *       "start_time": "2027-10-31T19:00:00Z",
                 *       "party_size": 4,
                 *       "customer": {
                 *         "name": "Ada Lovelace",
                 *         "email": "ada@example.com"
                 *       },
                 *       "offer_expires_in_seconds": 900
                 *     }
                 */
                "application/json": components["schemas"]["CreateWaitlistEntryInput"];
            };
        };
        responses: {
            /** @description The entry: `waiting`, or `offered` with its `offer`. */
            201: {
                headers: {
                    /** @description The new record's URL, `/v1/waitlist_entries/{id}`. */
                    Location?: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        service_id: string;
                        start_time: components["schemas"]["DateTime"];
                        party_size: number;
                        customer: {
                            /** @example Ada Lovelace */
                            name: string;
                            /** @example ada@example.com */
                            email: string;
                        };
                        status: components["schemas"]["WaitlistStatus"];
                        /** @description The last offer made to the entry; null before the first. */
                        offer: {
                            hold_id: string;
                            expires_at: components["schemas"]["DateTime"];
                        } | null;
                        created_at: components["schemas"]["DateTime"];
                        /** @description While WAITING: 1 + the slot's entries waiting that joined before it (the fairness rule offers places in this order); null otherwise. */
                        place_in_line: number | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:write` or `bookings:book`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `idempotency_key_in_use`: in the rare case that an earlier request with the key vanished mid-way. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description `validation_failed`: `errors` names each field, in the body’s snake_case (`unknown_field` for a key the body may not have). `too_many_waitlist_entries`: the account has 1,000 entries waiting or offered already, or the booking widget token 100. `too_many_holds`: the entry would be offered at once past the holds the account (1,000) or the booking widget token (100) may have held. `idempotency_key_reused`: the `Idempotency-Key` came before with another body (or on another create). */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWaitlistEntry: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description A `wle_…` id of the caller's account; any other gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The entry. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WaitlistEntry"];
                };
            };
            304: components["responses"]["NotModified"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:read` or `bookings:write`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    withdrawWaitlistEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A `wle_…` id of the caller's account; any other gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The entry, `withdrawn` (or as it was). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WaitlistEntry"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `bookings:write`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of endpoints. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    Link: components["headers"]["Link"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookEndpoint"][];
                        /** @description Another page follows. */
                        has_more: boolean;
                        /** @description The `cursor` of the next page; null on the last. */
                        next_cursor: string | null;
                    };
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `webhooks:manage`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://shop.example/hooks/hallowgate",
                 *       "events": [
                 *         "booking.created",
                 *         "booking.cancelled"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CreateWebhookEndpointInput"];
            };
        };
        responses: {
            /** @description The endpoint and its secret. */
            201: {
                headers: {
                    /** @description The new record's URL, `/v1/webhook_endpoints/{id}`. */
                    Location?: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `webhooks:manage`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description `validation_failed`: `errors` names each field, in the body’s snake_case (`unknown_field` for a key the body may not have). `too_many_endpoints`: the account has as many endpoints as it may. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description An HTTP date; answers 304 when nothing in the answer is newer. */
                "If-Modified-Since"?: components["parameters"]["IfModifiedSince"];
            };
            path: {
                /** @description A `we_…` id of the caller's account; any other (or a deleted one) gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "Last-Modified": components["headers"]["Last-Modified"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            304: components["responses"]["NotModified"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `webhooks:manage`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A `we_…` id of the caller's account; any other (or a deleted one) gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint is gone. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example we_5Tg8Kp2Xc0Vn7Lq3Rm9WsB */
                        id: string;
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `webhooks:manage`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A `we_…` id of the caller's account; any other (or a deleted one) gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "enabled": true
                 *     }
                 */
                "application/json": components["schemas"]["UpdateWebhookEndpointInput"];
            };
        };
        responses: {
            /** @description The endpoint as changed. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `webhooks:manage`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description A `we_…` id of the caller's account; any other (or a deleted one) gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    Link: components["headers"]["Link"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookDelivery"][];
                        /** @description Another page follows. */
                        has_more: boolean;
                        /** @description The `cursor` of the next page; null on the last. */
                        next_cursor: string | null;
                    };
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `webhooks:manage`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    redeliverWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A `we_…` id of the caller's account; any other (or a deleted one) gives 404. */
                id: string;
                /** @description A delivery of this endpoint; any other gives 404. */
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery, `pending` again. */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `webhooks:manage`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            /** @description `delivery_pending`: the delivery is still being attempted. `endpoint_disabled`: the endpoint is disabled: enable it first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rotateWebhookEndpointSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A `we_…` id of the caller's account; any other (or a deleted one) gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint and its new secret. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `webhooks:manage`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    sendTestWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A `we_…` id of the caller's account; any other (or a deleted one) gives 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "event": "booking.cancelled"
                 *     }
                 */
                "application/json": components["schemas"]["SendTestWebhookInput"];
            };
        };
        responses: {
            /** @description The delivery, `succeeded` or `failed`, with its one attempt (the receiver's status, or why none came). */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `webhooks:manage`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["NotFound"];
            /** @description `endpoint_busy`: a delivery to the endpoint is being sent: an endpoint receives one at a time. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    receiveBookingEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's `msg_…` id, the same on every retry and redelivery; receivers deduplicate on it. */
                "webhook-id": components["parameters"]["WebhookId"];
                /** @description When this attempt was signed, in whole seconds since the Unix epoch. */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /** @description `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_` (Standard Webhooks). For 24 h after a rotation there are two, separated by a space: one with the new secret and one with the old, so a receiver verifies with either. */
                "webhook-signature": components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BookingEvent"];
            };
        };
        responses: {
            /** @description Any 2xx ends the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything other than 2xx (including 3xx and 4xx) is retried on the schedule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    receiveWaitlistOffer: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's `msg_…` id, the same on every retry and redelivery; receivers deduplicate on it. */
                "webhook-id": components["parameters"]["WebhookId"];
                /** @description When this attempt was signed, in whole seconds since the Unix epoch. */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /** @description `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_` (Standard Webhooks). For 24 h after a rotation there are two, separated by a space: one with the new secret and one with the old, so a receiver verifies with either. */
                "webhook-signature": components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BookingEvent"];
            };
        };
        responses: {
            /** @description Any 2xx ends the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything other than 2xx (including 3xx and 4xx) is retried on the schedule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    receiveUsageAlert: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's `msg_…` id, the same on every retry and redelivery; receivers deduplicate on it. */
                "webhook-id": components["parameters"]["WebhookId"];
                /** @description When this attempt was signed, in whole seconds since the Unix epoch. */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /** @description `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_` (Standard Webhooks). For 24 h after a rotation there are two, separated by a space: one with the new secret and one with the old, so a receiver verifies with either. */
                "webhook-signature": components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UsageAlertEvent"];
            };
        };
        responses: {
            /** @description Any 2xx ends the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything other than 2xx (including 3xx and 4xx) is retried on the schedule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
