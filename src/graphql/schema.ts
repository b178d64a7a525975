import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import '../access/graphql.js';
import '../bookings/graphql.js';
import '../bookings/holds/graphql.js';
import '../directory/graphql.js';
import '../events/graphql.js';
import '../events/subscriptions.js';
import '../events/webhooks/graphql.js';
import '../analytics/graphql.js';

export const schema = builder.toSchema();

export function printSdl(): string {
  return printSchema(lexicographicSortSchema(schema));
}
