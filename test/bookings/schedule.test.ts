import { describe, expect, it } from 'vitest';
import { isSlot, isTimeZone, localTimeMinutes, openingMinutes, slotsBetween, type Schedule } from '../../src/bookings/schedule.js';

const iso = (date: Date) => date.toISOString().replace('.000Z', 'Z');
const starts = (schedule: Schedule, from: string, to = from) => slotsBetween(schedule, from, to).map((slot) => iso(slot.start));

// The expected instants below are written out by hand from the published US rules (EST −5, EDT −4;
// CST −6, CDT −5), independently of the code.

describe('the slot grid across the 2027 US clock changes (America/New_York, Sunday 00:00–03:00, 30-minute slots and visits)', () => {
  const night: Schedule = {
    timezone: 'America/New_York',
    slotMinutes: 30,
    durationMinutes: 30,
    seasonStart: '2027-01-01',
    seasonEnd: '2027-12-31',
    openingHours: [{ weekday: 7, opens: '00:00', closes: '03:00' }],
  };

  it('has 4 slots on 2027-03-14, when 02:00–02:59 does not exist', () => {
    expect(starts(night, '2027-03-14')).toEqual(['2027-03-14T05:00:00Z', '2027-03-14T05:30:00Z', '2027-03-14T06:00:00Z', '2027-03-14T06:30:00Z']);
    // 01:30 EST ends at 03:00 EDT, the closing time.
    expect(iso(slotsBetween(night, '2027-03-14', '2027-03-14').at(-1)!.end)).toBe('2027-03-14T07:00:00Z');
  });

  it('has 8 slots on 2027-11-07, when 01:00–01:59 happens twice', () => {
    expect(starts(night, '2027-11-07')).toEqual([
      '2027-11-07T04:00:00Z', // 00:00 EDT
      '2027-11-07T04:30:00Z',
      '2027-11-07T05:00:00Z', // 01:00 EDT
      '2027-11-07T05:30:00Z', // 01:30 EDT
      '2027-11-07T06:00:00Z', // 01:00 EST
      '2027-11-07T06:30:00Z', // 01:30 EST
      '2027-11-07T07:00:00Z', // 02:00 EST
      '2027-11-07T07:30:00Z', // 02:30 EST, ends at 03:00 EST
    ]);
  });

  it('has 6 slots on a normal night, in summer and in winter time', () => {
    expect(starts(night, '2027-03-21')).toEqual(['04:00', '04:30', '05:00', '05:30', '06:00', '06:30'].map((time) => `2027-03-21T${time}:00Z`));
    expect(starts(night, '2027-11-14')).toEqual(['05:00', '05:30', '06:00', '06:30', '07:00', '07:30'].map((time) => `2027-11-14T${time}:00Z`));
  });

  it('knows each of those instants as a slot, and the skipped hour as none', () => {
    for (const start of [...starts(night, '2027-03-14'), ...starts(night, '2027-11-07')]) expect(isSlot(night, new Date(start)), start).toBe(true);
    // 03:00 EDT: the first wall time after the gap, but a 30-minute visit would end after closing.
    expect(isSlot(night, new Date('2027-03-14T07:00:00Z'))).toBe(false);
  });

  it('treats a closing time the clock skips as the moment it jumps past it', () => {
    const skipped: Schedule = { ...night, openingHours: [{ weekday: 7, opens: '00:00', closes: '02:30' }] };
    // Open until 03:00 EDT (07:00Z): the same four slots as with 03:00.
    expect(starts(skipped, '2027-03-14')).toEqual(starts(night, '2027-03-14'));
  });
});

describe('a Saturday 22:00–01:00 in America/Chicago (30-minute slots and visits)', () => {
  const saturdays: Schedule = {
    timezone: 'America/Chicago',
    slotMinutes: 30,
    durationMinutes: 30,
    seasonStart: '2027-09-15',
    seasonEnd: '2027-10-30',
    openingHours: [{ weekday: 6, opens: '22:00', closes: '01:00' }],
  };

  it('runs past midnight: the 00:00 and 00:30 slots start on Sunday and belong to Saturday', () => {
    // 2027-10-30 is a Saturday and the last day of the season; CDT (−5).
    expect(starts(saturdays, '2027-10-30', '2027-10-31')).toEqual([
      '2027-10-31T03:00:00Z', // Saturday 22:00
      '2027-10-31T03:30:00Z',
      '2027-10-31T04:00:00Z',
      '2027-10-31T04:30:00Z',
      '2027-10-31T05:00:00Z', // Sunday 00:00
      '2027-10-31T05:30:00Z', // Sunday 00:30, ends at 01:00
    ]);
    // A range is of local start days: Saturday alone has the four evening slots, Sunday the two after midnight.
    expect(starts(saturdays, '2027-10-30')).toHaveLength(4);
    expect(starts(saturdays, '2027-10-31')).toEqual(['2027-10-31T05:00:00Z', '2027-10-31T05:30:00Z']);
    expect(isSlot(saturdays, new Date('2027-10-31T05:30:00Z'))).toBe(true);
  });

  it('has no slot off the grid, outside the hours or outside the season', () => {
    const cases: [string, string][] = [
      ['2027-10-31T03:15:00Z', 'between two slots'],
      ['2027-10-31T03:00:00.001Z', 'a millisecond after a slot'],
      ['2027-10-31T02:30:00Z', 'before opening (21:30)'],
      ['2027-10-31T06:00:00Z', 'at closing (01:00)'],
      ['2027-10-30T03:00:00Z', 'a Friday at 22:00'],
      ['2027-11-07T04:00:00Z', 'a Saturday after the season (CST: 22:00 is 04:00Z)'],
      ['2027-09-12T03:00:00Z', 'a Saturday before the season'],
    ];
    for (const [instant, label] of cases) expect(isSlot(saturdays, new Date(instant)), label).toBe(false);
    expect(starts(saturdays, '2027-11-06', '2027-11-07')).toEqual([]);
  });

  it('lists every Saturday of the season, oldest first', () => {
    const all = slotsBetween(saturdays, '2027-09-01', '2027-11-30');
    // Saturdays 18 Sep … 30 Oct: 7 nights of 6 slots.
    expect(all).toHaveLength(42);
    expect(all.map((slot) => slot.start.getTime())).toEqual([...all.map((slot) => slot.start.getTime())].sort((a, b) => a - b));
    expect(iso(all[0]!.start)).toBe('2027-09-19T03:00:00Z');
  });
});

describe('other grids', () => {
  it('starts a slot every slotMinutes even when visits are longer, while they end by closing', () => {
    const patch: Schedule = {
      timezone: 'America/Los_Angeles',
      slotMinutes: 15,
      durationMinutes: 45,
      seasonStart: '2027-10-01',
      seasonEnd: '2027-10-31',
      openingHours: [{ weekday: 5, opens: '10:00', closes: '11:00' }],
    };
    // Friday 2027-10-01, PDT (−7): 10:00 and 10:15 (ends 11:00); 10:30 would end at 11:15.
    expect(starts(patch, '2027-10-01')).toEqual(['2027-10-01T17:00:00Z', '2027-10-01T17:15:00Z']);
  });

  it('lists a start once when two openings of a day overlap', () => {
    const overlapping: Schedule = {
      timezone: 'UTC',
      slotMinutes: 60,
      durationMinutes: 60,
      seasonStart: '2027-10-01',
      seasonEnd: '2027-10-01',
      openingHours: [
        { weekday: 5, opens: '10:00', closes: '13:00' },
        { weekday: 5, opens: '12:00', closes: '14:00' },
      ],
    };
    expect(starts(overlapping, '2027-10-01')).toEqual(['10', '11', '12', '13'].map((hour) => `2027-10-01T${hour}:00:00Z`));
  });

  it('reads local times and zones strictly', () => {
    expect(localTimeMinutes('00:00')).toBe(0);
    expect(localTimeMinutes('23:59')).toBe(1439);
    for (const bad of ['25:00', '24:00', '7:00', '12:60', '12:00:00', '']) expect(localTimeMinutes(bad), bad).toBeNull();
    expect(openingMinutes({ weekday: 6, opens: '22:00', closes: '01:00' })).toBe(180);
    expect(openingMinutes({ weekday: 1, opens: '09:00', closes: '17:30' })).toBe(510);
    for (const zone of ['America/New_York', 'Europe/Berlin', 'UTC', 'Pacific/Honolulu']) expect(isTimeZone(zone), zone).toBe(true);
    for (const zone of ['America/Gotham', '+05:00', 'EST5EDT; DROP', '', 'Mars/Olympus_Mons']) expect(isTimeZone(zone), zone).toBe(false);
  });
});
