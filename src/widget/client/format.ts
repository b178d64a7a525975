/** Dates in the event's own time zone and prices in its currency, with the visitor's locale. */
import type { Badge } from './places.js';

const day: Intl.DateTimeFormatOptions = { weekday: 'short', month: 'short', day: 'numeric' };
const time: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' };
const zoneName: Intl.DateTimeFormatOptions = { timeZoneName: 'short' };
const dayMs = 86_400_000;

export function dateTimeFormat(timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(undefined, { ...options, timeZone });
  } catch {
    // An unknown zone name: UTC, labelled as such, is still true.
    return new Intl.DateTimeFormat(undefined, { ...options, timeZone: 'UTC' });
  }
}

/**
 * "Sat, Oct 30, 7:00 – 11:00 PM EDT"; a night that runs past midnight reads "Sat, Oct 30, 7:00 PM –
 * 1:00 AM EDT"; the year shows when it is not this year's; only the start when the end is missing.
 */
export function formatWhen(startsAt: string, endsAt: string, timeZone: string, now: Date): string {
  const start = new Date(startsAt);
  if (Number.isNaN(start.getTime())) return '';
  const end = new Date(endsAt);
  const date = start.getUTCFullYear() === now.getUTCFullYear() ? day : { ...day, year: 'numeric' as const };
  const full = dateTimeFormat(timeZone, { ...date, ...time, ...zoneName });
  const length = end.getTime() - start.getTime();
  if (!(length > 0) || typeof full.formatRange !== 'function') return full.format(start);
  const calendarDay = dateTimeFormat(timeZone, { year: 'numeric', month: 'numeric', day: 'numeric' });
  if (length < dayMs && calendarDay.format(start) !== calendarDay.format(end)) {
    return `${dateTimeFormat(timeZone, { ...date, ...time }).format(start)} – ${dateTimeFormat(timeZone, { ...time, ...zoneName }).format(end)}`;
  }
  return full.formatRange(start, end);
}

function formatMoney(amount: number, currency: string, wholeAmounts: boolean): string {
  const digits = wholeAmounts ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {};
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, ...digits }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** "$24 – $49", "$15", "Free", "Free – $20"; empty when the event has no prices. */
export function formatPrice(min: number | null, max: number | null, currency: string): string {
  const low = min ?? max;
  const high = max ?? min;
  if (low === null || high === null) return '';
  const whole = Number.isInteger(low) && Number.isInteger(high);
  const show = (amount: number) => (amount === 0 ? 'Free' : formatMoney(amount, currency, whole));
  return low === high ? show(low) : `${show(low)} – ${show(high)}`;
}

const placesWord = (count: number) => (count === 1 ? '1 place' : `${count} places`);

/**
 * "Room for 6 at 7:30 PM · 14 places left", "Few left · Room for 6 at …", "Sold out", "No times
 * left tonight"; the day shows when the slot is not on today's date where the event is.
 */
export function formatPlaces(badge: Badge, timeZone: string, now: Date): string {
  switch (badge.kind) {
    case 'checking':
      return 'Checking places left…';
    case 'sold-out':
      return 'Sold out';
    case 'closed':
      return badge.tonight ? 'No times left tonight' : 'No times in this window';
    case 'unavailable':
      return 'Places left cannot be shown right now';
    default: {
      const calendarDay = dateTimeFormat(timeZone, { year: 'numeric', month: 'numeric', day: 'numeric' });
      const sameDay = calendarDay.format(badge.startTime) === calendarDay.format(now);
      const at = dateTimeFormat(timeZone, sameDay ? time : { weekday: 'short', ...time }).format(badge.startTime);
      const room = `Room for ${badge.party} ${sameDay ? 'at' : 'on'} ${at} · ${placesWord(badge.remaining)} left`;
      return badge.kind === 'few' ? `Few left · ${room}` : room;
    }
  }
}

/** "2.1 km", in the visitor's locale. */
export function formatDistance(km: number): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'unit', unit: 'kilometer', maximumFractionDigits: 1 }).format(km);
  } catch {
    return `${Math.round(km * 10) / 10} km`;
  }
}
