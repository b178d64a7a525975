import { AppError } from '../shared/errors.js';
import {
  BookingsVersionDocument,
  CancelBookingDocument,
  CreateBookingDocument,
  GetBookingDocument,
  GetServiceDocument,
  ListBookingEventsDocument,
  ListBookingsDocument,
  ListServicesDocument,
  UpdateBookingDocument,
  type BookingStatus,
} from './__generated__/graphql.js';
import { listPage, pageArguments } from './lists.js';
import { runOperation } from './operation.js';
import type { RestRequest, RestRoute } from './routes.js';
import { bodyAsInput, snakeCaseKeys } from './shape.js';

function optionalParameter(request: RestRequest, name: string): string | undefined {
  const values = request.query.getAll(name);
  if (values.length > 1) throw new AppError('invalid_parameter', `Send ${name} once.`, { fieldErrors: [{ field: name, code: 'repeated', message: `Send ${name} once.` }] });
  return values[0] === undefined || values[0] === '' ? undefined : values[0];
}

function idempotencyKeyOf(request: RestRequest): string | null {
  const header = request.headers['idempotency-key'];
  return typeof header === 'string' ? header : null;
}

const bookingsVersion = async (request: RestRequest) => (await runOperation(BookingsVersionDocument, {}, request.context)).bookingsVersion;

export const bookingRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/bookings',
    async handle(request) {
      const { createBooking } = await runOperation(
        CreateBookingDocument,
        { input: bodyAsInput(request.body), idempotencyKey: idempotencyKeyOf(request) },
        request.context,
      );
      return {
        status: 201,
        body: createBooking.booking,
        headers: {
          location: `/v1/bookings/${createBooking.booking.id}`,
          ...(createBooking.replayed ? { 'idempotent-replayed': 'true' } : {}),
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/v1/bookings',
    validator: bookingsVersion,
    async handle(request) {
      const { bookings, bookingsLastModified } = await runOperation(
        ListBookingsDocument,
        {
          startDate: optionalParameter(request, 'start_date'),
          endDate: optionalParameter(request, 'end_date'),
          // The schema's enum answers any other word with 400 invalid_parameter naming `status`.
          status: optionalParameter(request, 'status') as BookingStatus | undefined,
          serviceId: optionalParameter(request, 'service_id'),
          ...pageArguments(request.query),
        },
        request.context,
      );
      return { ...listPage(request.url, bookings, (booking) => booking), lastModified: bookingsLastModified ? new Date(bookingsLastModified) : null };
    },
  },
  {
    method: 'GET',
    path: '/v1/bookings/:id',
    validator: bookingsVersion,
    async handle(request) {
      const { booking } = await runOperation(GetBookingDocument, { id: request.params['id']! }, request.context);
      return { status: 200, body: booking, lastModified: new Date(booking.updated_at) };
    },
  },
  {
    method: 'PATCH',
    path: '/v1/bookings/:id',
    async handle(request) {
      const { updateBooking } = await runOperation(
        UpdateBookingDocument,
        { id: request.params['id']!, input: bodyAsInput(request.body) },
        request.context,
      );
      return { status: 200, body: updateBooking };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/bookings/:id',
    async handle(request) {
      const { cancelBooking } = await runOperation(CancelBookingDocument, { id: request.params['id']! }, request.context);
      return { status: 200, body: cancelBooking };
    },
  },
  {
    method: 'GET',
    path: '/v1/services',
    cacheSeconds: 60,
    async handle(request) {
      const { services } = await runOperation(
        ListServicesDocument,
        { attractionId: optionalParameter(request, 'attraction_id'), ...pageArguments(request.query) },
        request.context,
      );
      return listPage(request.url, services, (service) => snakeCaseKeys(service));
    },
  },
  {
    method: 'GET',
    path: '/v1/services/:id',
    cacheSeconds: 60,
    async handle(request) {
      const { service } = await runOperation(GetServiceDocument, { id: request.params['id']! }, request.context);
      return { status: 200, body: snakeCaseKeys(service) };
    },
  },
  {
    method: 'GET',
    path: '/v1/booking_events',
    validator: bookingsVersion,
    async handle(request) {
      const { bookingEvents } = await runOperation(
        ListBookingEventsDocument,
        { afterEvent: optionalParameter(request, 'after'), ...pageArguments(request.query) },
        request.context,
      );
      // Events never change, so the newest one listed dates the page.
      const newest = bookingEvents.edges.at(-1)?.node.created;
      return { ...listPage(request.url, bookingEvents, (event) => event), lastModified: newest ? new Date(newest) : null };
    },
  },
];
