/** Types of the directory, /api/v1 (api-v1.json), written by `npm run generate:client`: do not edit. */

export interface paths {
    "/api/v1/attractions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List attractions
         * @description An attraction’s `events` (with `include=events`) are at most 100, by start time, in the event shape.
         *
         *     Needs the `directory:read` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `DirectoryAttractions`.
         */
        get: operations["listAttractions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/attractions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve one of the attractions
         * @description Needs the `directory:read` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `DirectoryAttraction`.
         */
        get: operations["getAttraction"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/categories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List categories
         * @description Needs the `directory:read` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `DirectoryCategories`.
         */
        get: operations["listCategories"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/categories/{id_or_slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve one of the categories
         * @description Needs the `directory:read` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `DirectoryCategory`.
         */
        get: operations["getCategory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List events
         * @description Needs the `directory:read` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `DirectoryEvents`.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve one of the events
         * @description Needs the `directory:read` scope (`admin` has every scope).
         *
         *     Runs the GraphQL operation `DirectoryEvent`.
         */
        get: operations["getEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getDirectoryOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Every key but `id` may be left out by `fields`; `events` and `categories` appear only with `include`. */
        Attraction: {
            id: string;
            name?: string;
            description?: string;
            city?: string;
            region?: string;
            website?: string | null;
            /** @description WGS 84 degrees; null while an operator has not placed it (no near search finds it). */
            latitude?: number | null;
            /** @description WGS 84 degrees; null while an operator has not placed it. */
            longitude?: number | null;
            event_count?: number;
            first_starts_at?: components["schemas"]["DateTime"] | null;
            last_ends_at?: components["schemas"]["DateTime"] | null;
            /** @description Start of the next event from now, if any. */
            next_starts_at?: components["schemas"]["DateTime"] | null;
            price_min?: number | null;
            price_max?: number | null;
            /** @description When the aggregated view last changed: an update of the attraction or of one of its events, or the start of an event (which moves `next_starts_at`). */
            updated_at?: components["schemas"]["DateTime"];
            /** @description Great-circle distance from the point searched near, in kilometres to 0.01 km (whatever the radius unit); null without a point. */
            distance_km?: number | null;
            /** @description The soonest slots (at most 5) in the availability window with room for the party searched for; null without a party size. */
            next_slots?: {
                /** @description The service that books it (Service.availability has the rest of its slots). */
                service_id: string;
                start_time: components["schemas"]["DateTime"];
                end_time: components["schemas"]["DateTime"];
                /** @description Places left: at least the party size asked for. */
                remaining: number;
            }[] | null;
            categories?: {
                id: string;
                /** @example haunted-house */
                slug: string;
                name: string;
            }[];
            events?: components["schemas"]["AttractionEvent"][];
        };
        AttractionEvent: {
            id: string;
            title: string;
            description: string;
            city: string;
            region: string;
            venue: string;
            address: string;
            latitude: number;
            longitude: number;
            starts_at: components["schemas"]["DateTime"];
            ends_at: components["schemas"]["DateTime"];
            /** @description IANA time zone of the venue. */
            timezone: string;
            price_min: number;
            price_max: number;
            currency: string;
            url: string;
            attraction_id: string;
            updated_at: components["schemas"]["DateTime"];
        };
        /** @description Every key but `id` may be left out by `fields`. */
        Category: {
            id: string;
            /** @example haunted-house */
            slug?: string;
            name?: string;
        };
        /**
         * Format: date-time
         * @description ISO 8601 in UTC with `Z` and seconds (`2027-10-31T19:00:00Z`); no other offset, and a real calendar date.
         */
        DateTime: string;
        /** @enum {string} */
        DistanceUnit: "km" | "mi";
        /** @description Every key but `id` may be left out by `fields`; `categories` and `images` appear only with `include`. */
        Event: {
            id: string;
            title?: string;
            description?: string;
            city?: string;
            region?: string;
            venue?: string;
            address?: string;
            latitude?: number;
            longitude?: number;
            starts_at?: components["schemas"]["DateTime"];
            ends_at?: components["schemas"]["DateTime"];
            /** @description IANA time zone of the venue. */
            timezone?: string;
            price_min?: number;
            price_max?: number;
            currency?: string;
            url?: string;
            attraction_id?: string;
            updated_at?: components["schemas"]["DateTime"];
            /** @description Great-circle distance from the point searched near, in kilometres to 0.01 km (whatever the radius unit); null without a point. */
            distance_km?: number | null;
            /** @description The soonest slots (at most 5) in the availability window with room for the party searched for; null without a party size. Slots of the services of its attraction. */
            next_slots?: {
                /** @description The service that books it (Service.availability has the rest of its slots). */
                service_id: string;
                start_time: components["schemas"]["DateTime"];
                end_time: components["schemas"]["DateTime"];
                /** @description Places left: at least the party size asked for. */
                remaining: number;
            }[] | null;
            categories?: {
                id: string;
                /** @example haunted-house */
                slug: string;
                name: string;
            }[];
            images?: {
                id: string;
                url: string;
                width: number;
                height: number;
                alt: string;
            }[];
        };
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
    };
    parameters: {
        /** @description The `next_cursor` of the previous page. */
        Cursor: string;
        /** @description An HTTP date; answers 304 when nothing in the answer is newer. */
        IfModifiedSince: string;
        /** @description ETags received earlier; a match answers 304. */
        IfNoneMatch: string;
        /** @description Page size. */
        Limit: number;
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
    listAttractions: {
        parameters: {
            query?: {
                /** @description Matches case-insensitively. */
                city?: string;
                /** @description A category slug, such as `haunted-house`. */
                category?: string;
                /** @description A date (the start of that UTC day) or a UTC timestamp; inclusive. */
                starts_after?: string;
                /** @description A date (the start of that UTC day) or a UTC timestamp; exclusive. */
                starts_before?: string;
                /** @description Text found, literally and case-insensitively, in the name or description (at most 200 characters). */
                q?: string;
                /** @description Latitude of the point to search near, in WGS 84 degrees (with its longitude). */
                lat?: number;
                /** @description Longitude of the point to search near, in WGS 84 degrees (with its latitude). */
                lng?: number;
                /** @description Keeps records within this great-circle distance of the point (given with lat and lng), in the radius unit; at most 500 km (310.6 mi). */
                radius?: number;
                /** @description The unit of the radius: kilometres (the default) or miles. */
                radius_unit?: components["schemas"]["DistanceUnit"];
                /** @description A party size: keeps records whose attraction has a slot in the availability window with at least this many places left (events: those taking place in the window), and answers the soonest of them. */
                available_for?: number;
                /** @description Start of the availability window; default now. */
                available_from?: components["schemas"]["DateTime"];
                /** @description End of the availability window (slots start before it); default a day after its start, at most 7 days after it (or after now, for a window that has begun). */
                available_to?: components["schemas"]["DateTime"];
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Comma-separated fields to order by, `-` for descending; the id breaks ties. Any other name is 400. */
                sort?: ("city" | "-city" | "distance" | "-distance" | "event_count" | "-event_count" | "first_starts_at" | "-first_starts_at" | "last_ends_at" | "-last_ends_at" | "name" | "-name" | "price_max" | "-price_max" | "price_min" | "-price_min")[];
                /** @description Comma-separated keys to send; `id` is always sent. Any other name is 400. */
                fields?: ("id" | "name" | "description" | "city" | "region" | "website" | "latitude" | "longitude" | "event_count" | "first_starts_at" | "last_ends_at" | "next_starts_at" | "price_min" | "price_max" | "updated_at" | "distance_km" | "next_slots")[];
                /** @description Comma-separated related records to embed; without it they are left out. Any other name is 400. */
                include?: ("categories" | "events")[];
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
            /** @description A page of attractions. */
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
                        data: components["schemas"]["Attraction"][];
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
            /** @description `insufficient_scope`: the credential lacks `directory:read`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
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
    getAttraction: {
        parameters: {
            query?: {
                /** @description Comma-separated keys to send; `id` is always sent. Any other name is 400. */
                fields?: ("id" | "name" | "description" | "city" | "region" | "website" | "latitude" | "longitude" | "event_count" | "first_starts_at" | "last_ends_at" | "next_starts_at" | "price_min" | "price_max" | "updated_at" | "distance_km" | "next_slots")[];
                /** @description Comma-separated related records to embed; without it they are left out. Any other name is 400. */
                include?: ("categories" | "events")[];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description An HTTP date; answers 304 when nothing in the answer is newer. */
                "If-Modified-Since"?: components["parameters"]["IfModifiedSince"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attraction. */
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
                    "application/json": components["schemas"]["Attraction"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `directory:read`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
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
    listCategories: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Comma-separated keys to send; `id` is always sent. Any other name is 400. */
                fields?: ("id" | "slug" | "name")[];
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
            /** @description A page of categories, by slug. */
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
                        data: components["schemas"]["Category"][];
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
            /** @description `insufficient_scope`: the credential lacks `directory:read`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
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
    getCategory: {
        parameters: {
            query?: {
                /** @description Comma-separated keys to send; `id` is always sent. Any other name is 400. */
                fields?: ("id" | "slug" | "name")[];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description An HTTP date; answers 304 when nothing in the answer is newer. */
                "If-Modified-Since"?: components["parameters"]["IfModifiedSince"];
            };
            path: {
                /** @description A `cat_…` id or a slug. */
                id_or_slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The category. */
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
                    "application/json": components["schemas"]["Category"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `directory:read`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
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
    listEvents: {
        parameters: {
            query?: {
                /** @description Matches case-insensitively. */
                city?: string;
                /** @description A category slug, such as `haunted-house`. */
                category?: string;
                /** @description A date (the start of that UTC day) or a UTC timestamp; inclusive. */
                starts_after?: string;
                /** @description A date (the start of that UTC day) or a UTC timestamp; exclusive. */
                starts_before?: string;
                /** @description Text found, literally and case-insensitively, in the title, description or venue (at most 200 characters). */
                q?: string;
                /** @description Latitude of the point to search near, in WGS 84 degrees (with its longitude). */
                lat?: number;
                /** @description Longitude of the point to search near, in WGS 84 degrees (with its latitude). */
                lng?: number;
                /** @description Keeps records within this great-circle distance of the point (given with lat and lng), in the radius unit; at most 500 km (310.6 mi). */
                radius?: number;
                /** @description The unit of the radius: kilometres (the default) or miles. */
                radius_unit?: components["schemas"]["DistanceUnit"];
                /** @description A party size: keeps records whose attraction has a slot in the availability window with at least this many places left (events: those taking place in the window), and answers the soonest of them. */
                available_for?: number;
                /** @description Start of the availability window; default now. */
                available_from?: components["schemas"]["DateTime"];
                /** @description End of the availability window (slots start before it); default a day after its start, at most 7 days after it (or after now, for a window that has begun). */
                available_to?: components["schemas"]["DateTime"];
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description The `next_cursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Comma-separated fields to order by, `-` for descending; the id breaks ties. Any other name is 400. */
                sort?: ("city" | "-city" | "distance" | "-distance" | "ends_at" | "-ends_at" | "price_max" | "-price_max" | "price_min" | "-price_min" | "starts_at" | "-starts_at" | "title" | "-title" | "updated_at" | "-updated_at")[];
                /** @description Comma-separated keys to send; `id` is always sent. Any other name is 400. */
                fields?: ("id" | "title" | "description" | "city" | "region" | "venue" | "address" | "latitude" | "longitude" | "starts_at" | "ends_at" | "timezone" | "price_min" | "price_max" | "currency" | "url" | "attraction_id" | "updated_at" | "distance_km" | "next_slots")[];
                /** @description Comma-separated related records to embed; without it they are left out. Any other name is 400. */
                include?: ("categories" | "images")[];
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
            /** @description A page of events. */
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
                        data: components["schemas"]["Event"][];
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
            /** @description `insufficient_scope`: the credential lacks `directory:read`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
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
    getEvent: {
        parameters: {
            query?: {
                /** @description Comma-separated keys to send; `id` is always sent. Any other name is 400. */
                fields?: ("id" | "title" | "description" | "city" | "region" | "venue" | "address" | "latitude" | "longitude" | "starts_at" | "ends_at" | "timezone" | "price_min" | "price_max" | "currency" | "url" | "attraction_id" | "updated_at" | "distance_km" | "next_slots")[];
                /** @description Comma-separated related records to embed; without it they are left out. Any other name is 400. */
                include?: ("categories" | "images")[];
            };
            header?: {
                /** @description ETags received earlier; a match answers 304. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description An HTTP date; answers 304 when nothing in the answer is newer. */
                "If-Modified-Since"?: components["parameters"]["IfModifiedSince"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event. */
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
                    "application/json": components["schemas"]["Event"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `insufficient_scope`: the credential lacks `directory:read`; or the client address or page origin is not allowed for it (`ip_not_allowed`, `origin_not_allowed`). */
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
    getDirectoryOpenApi: {
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
}
