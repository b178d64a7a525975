import { describe, expect, it } from 'vitest';
import { tonight } from '../../src/widget/client/places.js';

/** Where the widget's "tonight" ends: the next 06:00 in the event's time zone, on the nights the clocks change too. */
const endOfTonight = (now: string, timeZone: string) => new Date(tonight(Date.parse(now), timeZone).to).toISOString();

describe("the widget's tonight", () => {
  it.each([
    ['an ordinary night in New York', '2027-10-31T23:00:00Z', 'America/New_York', '2027-11-01T10:00:00.000Z'],
    ['the night the clocks go forward in New York', '2027-03-13T23:00:00Z', 'America/New_York', '2027-03-14T10:00:00.000Z'],
    ['the night the clocks go forward in Los Angeles', '2027-03-14T02:00:00Z', 'America/Los_Angeles', '2027-03-14T13:00:00.000Z'],
    ['the night the clocks go back in New York', '2027-11-06T23:00:00Z', 'America/New_York', '2027-11-07T11:00:00.000Z'],
    ['the night the clocks go forward in London', '2027-03-27T22:00:00Z', 'Europe/London', '2027-03-28T05:00:00.000Z'],
    ['after midnight, before 06:00', '2027-03-14T08:30:00Z', 'America/New_York', '2027-03-14T10:00:00.000Z'],
    ['UTC', '2027-10-31T18:00:00Z', 'UTC', '2027-11-01T06:00:00.000Z'],
  ])('ends at 06:00 there on %s', (_night, now, timeZone, end) => {
    expect(endOfTonight(now, timeZone)).toBe(end);
  });
});
