import { tzOffset } from '@date-fns/tz';

/**
 * The slot grid of a service, as pure functions of its schedule: no database, no clock.
 *
 * Slots start at `opens + k × slotMinutes` local wall-clock time on each season day that has opening
 * hours for its ISO weekday, while the slot's end (start + durationMinutes, in elapsed time) is not
 * after the closing time. A `closes` earlier than `opens` is on the next day; the opening belongs to
 * the day it opens on, season included. A wall-clock time the zone skips (spring forward) has no
 * slot; one it repeats (fall back) has two, one per instant. Offsets come from the zone database
 * through @date-fns/tz for every day, never from a fixed offset.
 */

export interface OpeningHours {
  /** ISO weekday: 1 = Monday … 7 = Sunday. */
  weekday: number;
  /** Local `HH:MM`. */
  opens: string;
  /** Local `HH:MM`; earlier than `opens` means after midnight. */
  closes: string;
}

export interface Schedule {
  /** IANA time zone name. */
  timezone: string;
  slotMinutes: number;
  durationMinutes: number;
  /** First and last day of the season, `YYYY-MM-DD` in the service's zone, both inclusive. */
  seasonStart: string;
  seasonEnd: string;
  openingHours: readonly OpeningHours[];
}

export interface Slot {
  start: Date;
  end: Date;
}

const minuteMs = 60_000;
export const dayMs = 86_400_000;
const minutesPerDay = 1440;

/** The least time between two slot starts of one day: slotMinutes, and the starts of a day's openings together (the services' rules). */
export const minSlotMinutes = 5;

/**
 * The most slots a local day can hold: a start every minSlotMinutes of its wall clock, and again
 * each start in the hour or two a clock going back repeats. What one day of availability can return.
 */
export const maxSlotsPerDay = minutesPerDay / minSlotMinutes + 120 / minSlotMinutes;

/** `HH:MM` (00:00–23:59) as minutes after midnight; null for anything else, such as `25:00` or `7:00`. */
export function localTimeMinutes(text: string): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

/** A `YYYY-MM-DD` calendar day as a day number (days since 1970-01-01); null for an impossible date. */
export function dayNumber(date: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const time = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== date) return null;
  return time / dayMs;
}

export function dateOfDay(day: number): string {
  return new Date(day * dayMs).toISOString().slice(0, 10);
}

function isoWeekday(day: number): number {
  // 1970-01-01 was a Thursday (ISO 4).
  return ((((day + 3) % 7) + 7) % 7) + 1;
}

/** Whether the runtime's zone database knows `name` as an IANA zone (offset strings such as +05:00 are not names). */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The local calendar day of an instant in `zone`, as a day number. */
export function localDay(instant: Date, zone: string): number {
  return Math.floor((instant.getTime() + tzOffset(zone, instant) * minuteMs) / dayMs);
}

/** `zone`'s offset in minutes at `time` (ms). */
function offsetAt(zone: string, time: number): number {
  return tzOffset(zone, new Date(time));
}

/**
 * Wall-clock ↔ instant for the openings of one day. A slot's wall time lies within two days of the
 * day's midnight and its instant within 14 hours of the wall time; when the offset is the same a day
 * before and three days after, no change falls in between (zones never change twice in four days)
 * and every wall time has exactly one instant.
 */
class ZoneAround {
  private readonly steady: number | null;

  constructor(
    private readonly zone: string,
    day: number,
  ) {
    const before = offsetAt(zone, (day - 1) * dayMs);
    this.steady = before === offsetAt(zone, (day + 3) * dayMs) ? before : null;
  }

  /** The instants (ms) whose local time is `wall` (ms of a wall clock read as UTC): none in a gap, two in an overlap. */
  instants(wall: number): number[] {
    if (this.steady !== null) return [wall - this.steady * minuteMs];
    const offsets = new Set([offsetAt(this.zone, wall - dayMs), offsetAt(this.zone, wall + dayMs)]);
    return [...offsets]
      .map((offset) => wall - offset * minuteMs)
      .filter((instant) => offsetAt(this.zone, instant) * minuteMs === wall - instant)
      .sort((a, b) => a - b);
  }

  /**
   * When an opening that closes at `wall` ends: the instant the clock shows it, the later one when
   * it shows it twice, and when the clock skips it, the moment it jumps past it.
   */
  closing(wall: number): number {
    const instants = this.instants(wall);
    if (instants.length > 0) return instants[instants.length - 1]!;
    // In a gap: the change lies between the instant read with the later offset and with the earlier one.
    const [earlier, later] = [offsetAt(this.zone, wall - dayMs), offsetAt(this.zone, wall + dayMs)];
    // Changes happen on whole minutes; search them minute by minute.
    let low = wall - later * minuteMs;
    let high = wall - earlier * minuteMs;
    while (high - low > minuteMs) {
      const middle = low + Math.floor((high - low) / minuteMs / 2) * minuteMs;
      if (offsetAt(this.zone, middle) === later) high = middle;
      else low = middle;
    }
    return high;
  }
}

interface GridSlot {
  start: number;
  end: number;
  /** The local calendar day the slot starts on (day number). */
  startDay: number;
}

/** The slots of the openings that open on `day`, in no particular order. */
function slotsOpeningOn(schedule: Schedule, day: number, season: { start: number; end: number }, into: GridSlot[]): void {
  if (day < season.start || day > season.end) return;
  const weekday = isoWeekday(day);
  const openings = schedule.openingHours.filter((opening) => opening.weekday === weekday);
  if (openings.length === 0) return;
  const zone = new ZoneAround(schedule.timezone, day);
  const durationMs = schedule.durationMinutes * minuteMs;
  const midnight = day * dayMs;
  for (const opening of openings) {
    const opens = localTimeMinutes(opening.opens);
    let closes = localTimeMinutes(opening.closes);
    if (opens === null || closes === null || schedule.slotMinutes < 1) continue;
    if (closes <= opens) closes += minutesPerDay;
    const closing = zone.closing(midnight + closes * minuteMs);
    for (let minutes = opens; minutes < closes; minutes += schedule.slotMinutes) {
      for (const start of zone.instants(midnight + minutes * minuteMs)) {
        if (start + durationMs <= closing) into.push({ start, end: start + durationMs, startDay: day + Math.floor(minutes / minutesPerDay) });
      }
    }
  }
}

function seasonOf(schedule: Schedule): { start: number; end: number } | null {
  const start = dayNumber(schedule.seasonStart);
  const end = dayNumber(schedule.seasonEnd);
  return start === null || end === null ? null : { start, end };
}

/** Oldest first, each start once (openings of one day may overlap). */
function ordered(slots: GridSlot[]): GridSlot[] {
  slots.sort((a, b) => a.start - b.start);
  return slots.filter((slot, index) => index === 0 || slot.start !== slots[index - 1]!.start);
}

/** The grid of the local days `from` … `to` (`YYYY-MM-DD`, inclusive), one day of openings per step; its slots, oldest first, at the end. */
function* slotGrid(schedule: Schedule, from: string, to: string): Generator<void, Slot[]> {
  const season = seasonOf(schedule);
  const first = dayNumber(from);
  const last = dayNumber(to);
  if (!season || first === null || last === null) return [];
  const grid: GridSlot[] = [];
  // An opening of the day before may run past midnight into the first day.
  for (let day = Math.max(first - 1, season.start); day <= Math.min(last, season.end); day++) {
    slotsOpeningOn(schedule, day, season, grid);
    yield;
  }
  return ordered(grid.filter((slot) => slot.startDay >= first && slot.startDay <= last)).map((slot) => ({ start: new Date(slot.start), end: new Date(slot.end) }));
}

/** Every slot starting on the local days `from` … `to` (`YYYY-MM-DD`, inclusive), oldest first. */
export function slotsBetween(schedule: Schedule, from: string, to: string): Slot[] {
  const steps = slotGrid(schedule, from, to);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** slotsBetween with `pause` awaited after each day's openings, so a long range lets other work run between days (or is stopped). */
export async function slotsBetweenInSteps(schedule: Schedule, from: string, to: string, pause: () => Promise<void>): Promise<Slot[]> {
  const steps = slotGrid(schedule, from, to);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}

/** Whether `instant` is exactly the start of a slot (to the millisecond). */
export function isSlot(schedule: Schedule, instant: Date): boolean {
  const season = seasonOf(schedule);
  if (!season || !Number.isFinite(instant.getTime())) return false;
  const day = localDay(instant, schedule.timezone);
  const grid: GridSlot[] = [];
  // The slot opens on its own local day or, past midnight, on the day before.
  slotsOpeningOn(schedule, day - 1, season, grid);
  slotsOpeningOn(schedule, day, season, grid);
  return grid.some((slot) => slot.start === instant.getTime());
}

/** Minutes an opening lasts by the wall clock (what a slot's duration must fit in). */
export function openingMinutes(opening: OpeningHours): number | null {
  const opens = localTimeMinutes(opening.opens);
  const closes = localTimeMinutes(opening.closes);
  if (opens === null || closes === null) return null;
  return closes > opens ? closes - opens : closes + minutesPerDay - opens;
}

/**
 * The wall-clock starts (minutes after midnight) of the slots each ISO weekday's openings give,
 * those of an opening past midnight on the next weekday, sorted: what minSlotMinutes holds apart.
 */
export function wallClockStarts(openingHours: readonly OpeningHours[], slotMinutes: number, durationMinutes: number): Map<number, number[]> {
  const starts = new Map<number, Set<number>>();
  for (const opening of openingHours) {
    const opens = localTimeMinutes(opening.opens);
    let closes = localTimeMinutes(opening.closes);
    if (opens === null || closes === null || slotMinutes < 1) continue;
    if (closes <= opens) closes += minutesPerDay;
    for (let minutes = opens; minutes + durationMinutes <= closes; minutes += slotMinutes) {
      const weekday = ((opening.weekday - 1 + Math.floor(minutes / minutesPerDay)) % 7) + 1;
      let day = starts.get(weekday);
      if (!day) starts.set(weekday, (day = new Set()));
      day.add(minutes % minutesPerDay);
    }
  }
  return new Map([...starts].map(([weekday, minutes]) => [weekday, [...minutes].sort((a, b) => a - b)]));
}
