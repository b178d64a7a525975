import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { adminRequestFor, optionSpec, UsageError } from '../../src/cli/commands.js';

/** The REST request a command line stands for, parsed as the CLI parses it. */
function requestFor(...argv: string[]) {
  const { values, positionals } = parseArgs({ args: argv, options: optionSpec, allowPositionals: true });
  return adminRequestFor(positionals, values);
}

describe('hallowgate services', () => {
  it('create sends every field, opening hours one per weekday', () => {
    const request = requestFor(
      'services',
      'create',
      '--attraction',
      'at_1',
      '--name',
      'Timed entry',
      '--duration',
      '45',
      '--capacity',
      '30',
      '--timezone',
      'America/Chicago',
      '--slot-minutes',
      '15',
      '--season-start',
      '2027-09-15',
      '--season-end',
      '2027-11-01',
      '--hours',
      'thu,sun 19:00-23:00',
      '--hours',
      'fri-sat 19:00-01:00',
    );
    expect(request).toEqual({
      method: 'POST',
      route: '/v1/admin/services',
      body: {
        attraction_id: 'at_1',
        name: 'Timed entry',
        duration_minutes: 45,
        capacity: 30,
        timezone: 'America/Chicago',
        slot_minutes: 15,
        season_start: '2027-09-15',
        season_end: '2027-11-01',
        opening_hours: [
          { weekday: 4, opens: '19:00', closes: '23:00' },
          { weekday: 7, opens: '19:00', closes: '23:00' },
          { weekday: 5, opens: '19:00', closes: '01:00' },
          { weekday: 6, opens: '19:00', closes: '01:00' },
        ],
      },
    });
  });

  it('update sends only what it is given; days may be numbers, wrap past Sunday, or be daily', () => {
    expect(requestFor('services', 'update', 'svc_1', '--capacity', '12', '--hours', 'sat-mon 10:00-14:00')).toEqual({
      method: 'PATCH',
      route: '/v1/admin/services/:id',
      params: { id: 'svc_1' },
      body: {
        capacity: 12,
        opening_hours: [6, 7, 1].map((weekday) => ({ weekday, opens: '10:00', closes: '14:00' })),
      },
    });
    expect(requestFor('services', 'update', 'svc_1', '--hours', 'daily 09:00-17:00').body!['opening_hours']).toHaveLength(7);
    expect(requestFor('services', 'update', 'svc_1', '--hours', '1,7 09:00-17:00').body!['opening_hours']).toEqual([
      { weekday: 1, opens: '09:00', closes: '17:00' },
      { weekday: 7, opens: '09:00', closes: '17:00' },
    ]);
  });

  it('leaves checking values to the server, but refuses what it cannot read', () => {
    // The server answers 422 naming the field for these; the CLI passes them on as written.
    expect(requestFor('services', 'update', 'svc_1', '--duration', 'long', '--hours', 'fri 25:00-01:00').body).toEqual({
      duration_minutes: 'long',
      opening_hours: [{ weekday: 5, opens: '25:00', closes: '01:00' }],
    });
    expect(() => requestFor('services', 'update', 'svc_1', '--hours', 'someday 19:00-23:00')).toThrow(UsageError);
    expect(() => requestFor('services', 'update', 'svc_1', '--hours', 'fri 19:00')).toThrow(UsageError);
    expect(() => requestFor('services', 'update')).toThrow(UsageError);
  });

  it('takes one id at a time: a second is refused, never left undone', () => {
    for (const [group, command] of [
      ['keys', 'revoke'],
      ['keys', 'rotate'],
      ['widget-tokens', 'revoke'],
      ['services', 'update'],
    ] as const) {
      expect(() => requestFor(group, command, 'key_a', 'key_b')).toThrow(/^Give one .* id at a time: .* \(not also key_b\)$/);
    }
  });

  it('list goes to /v1/services, optionally of one attraction', () => {
    expect(requestFor('services', 'list', '--attraction', 'at_1')).toEqual({ method: 'GET', route: '/v1/services', query: { attraction_id: 'at_1' }, wholeList: true });
  });
});

describe('hallowgate attractions place', () => {
  it('sends the point as numbers', () => {
    expect(requestFor('attractions', 'place', 'at_1', '--lat', '42.5195', '--lng=-70.8967')).toEqual({
      method: 'PATCH',
      route: '/v1/admin/attractions/:id',
      params: { id: 'at_1' },
      body: { latitude: 42.5195, longitude: -70.8967 },
    });
  });

  it('sends what is not a number as it is, for the server to refuse by name', () => {
    expect(requestFor('attractions', 'place', 'at_1', '--lat', 'north', '--lng=-70').body).toEqual({ latitude: 'north', longitude: -70 });
  });
});
