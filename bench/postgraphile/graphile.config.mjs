// PostGraphile v5 (the performance peer of bench/race.ts): the amber preset over the bench's scratch
// database, plus connection-filter so bookings can be filtered on a start_time range as our API does.
import { makePgService } from 'postgraphile/adaptors/pg';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { PostGraphileConnectionFilterPreset } from 'postgraphile-plugin-connection-filter';

/** @param {import('pg').Pool} pool the pool the launcher counts statements on */
export function racePreset(pool) {
  /** @type {GraphileConfig.Preset} */
  return {
    extends: [PostGraphileAmberPreset, PostGraphileConnectionFilterPreset],
    pgServices: [makePgService({ pool, schemas: ['public'] })],
    // Only what the race's bookings query needs; the plugin's defaults expose far more.
    schema: { connectionFilterAllowedOperators: ['equalTo', 'greaterThanOrEqualTo', 'lessThan'], connectionFilterComputedColumns: false, connectionFilterSetofFunctions: false },
    grafserv: { graphiql: false, watch: false },
    grafast: { explain: false },
  };
}
