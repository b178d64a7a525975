import type { ObjectRef } from '@pothos/core';
import type { Principal } from '../access/principal.js';
import type { builder } from '../graphql/builder.js';

export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** Viewer is implemented by the access domain; the analytics fields are added to it by name. */
export const ViewerRef = 'Viewer' as unknown as ObjectRef<Types, Principal>;
