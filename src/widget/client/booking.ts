/** The booking view's calls: a service's slots, holds, bookings and waitlist entries (a token with bookings:book). */
import { callApi, isObject, numberOrNull, stringOr, type ApiAnswer, type Json, type Wording } from './api.js';

export interface Slot {
  startTime: string;
  endTime: string;
  capacity: number;
  remaining: number;
}

export interface Held {
  id: string;
  startTime: string;
  partySize: number;
  expiresAt: string;
}

export interface Customer {
  name: string;
  email: string;
}

export type Answer<Value> = { kind: 'ok'; value: Value } | Extract<ApiAnswer, { kind: 'problem' }>;

const wording: Wording = { widget: 'booking widget', task: 'take bookings', allowed: 'take bookings', failed: 'Booking is not possible', service: 'booking service' };
const dayMs = 86_400_000;

export interface BookingApi {
  slots(signal: AbortSignal): Promise<Answer<{ timezone: string; slots: Slot[] }> | null>;
  hold(slot: Slot, partySize: number): Promise<Answer<Held> | null>;
  release(hold: Held): Promise<Answer<unknown> | null>;
  book(hold: Held, customer: Customer): Promise<Answer<{ id: string }> | null>;
  /** The entry, and its offer when places were free as it joined: a hold of the token's to book. */
  joinWaitlist(slot: Slot, partySize: number, customer: Customer): Promise<Answer<{ id: string; placeInLine: number | null; offer: Held | null }> | null>;
}

function toSlot(record: unknown): Slot | null {
  if (!isObject(record) || typeof record['start_time'] !== 'string') return null;
  return {
    startTime: record['start_time'],
    endTime: stringOr(record['end_time']),
    capacity: numberOrNull(record['capacity']) ?? 0,
    remaining: numberOrNull(record['remaining']) ?? 0,
  };
}

/**
 * The API's days are the service's local days; the view starts a day before today's UTC date, so a
 * service behind UTC keeps this evening's slots (slots that have started are never answered).
 */
function availabilityUrl(apiBase: string, service: string, days: number, now: Date): string {
  const url = new URL(`v1/services/${encodeURIComponent(service)}/availability`, apiBase);
  const day = (offset: number) => new Date(now.getTime() + offset * dayMs).toISOString().slice(0, 10);
  url.searchParams.set('start_date', day(-1));
  url.searchParams.set('end_date', day(days - 1));
  return url.href;
}

export function bookingApi(apiBase: string, token: string, service: string, days: number, logError: (message: string) => void): BookingApi {
  const call = async <Value>(request: { method?: 'GET' | 'POST' | 'DELETE'; path: string; body?: Json; signal?: AbortSignal }, read: (body: Json) => Value) => {
    const answer = await callApi({ ...request, url: new URL(request.path, apiBase).href, token }, wording, logError);
    return answer && (answer.kind === 'ok' ? { kind: 'ok' as const, value: read(answer.body) } : answer);
  };
  return {
    slots: (signal) =>
      call({ path: availabilityUrl(apiBase, service, days, new Date()), signal }, (body) => ({
        timezone: stringOr(body['timezone'], 'UTC'),
        slots: (Array.isArray(body['data']) ? body['data'] : []).map(toSlot).filter((slot): slot is Slot => slot !== null),
      })),
    hold: (slot, partySize) =>
      call({ method: 'POST', path: 'v1/holds', body: { service_id: service, start_time: slot.startTime, party_size: partySize } }, (body) => ({
        id: stringOr(body['id']),
        startTime: slot.startTime,
        partySize,
        expiresAt: stringOr(body['expires_at']),
      })),
    release: (hold) => call({ method: 'DELETE', path: `v1/holds/${encodeURIComponent(hold.id)}` }, () => null),
    book: (hold, customer) => call({ method: 'POST', path: 'v1/bookings', body: { hold_id: hold.id, customer: { ...customer } } }, (body) => ({ id: stringOr(body['id']) })),
    joinWaitlist: (slot, partySize, customer) =>
      call({ method: 'POST', path: 'v1/waitlist_entries', body: { service_id: service, start_time: slot.startTime, party_size: partySize, customer: { ...customer } } }, (body) => {
        const offer = body['offer'];
        return {
          id: stringOr(body['id']),
          placeInLine: numberOrNull(body['place_in_line']),
          offer: isObject(offer) ? { id: stringOr(offer['hold_id']), startTime: slot.startTime, partySize, expiresAt: stringOr(offer['expires_at']) } : null,
        };
      }),
  };
}
