import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  print,
  type DocumentNode,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { scopes } from '../../access/principal.js';
import type { BookingRepresentation } from '../../bookings/representation.js';
import type { WaitlistEntryRepresentation } from '../../bookings/holds/hold.js';
import { logEventTypes, webhookEventTypes } from '../../events/kinds.js';
import { isoDate, isoUtc } from '../../graphql/scalars.js';
import { snakeCaseOf } from '../../shared/naming.js';
import { BookingFieldsFragmentDoc, WaitlistEntryFieldsFragmentDoc } from '../__generated__/graphql.js';
import { answerKeysOf, isConnectionType, isHiddenKey, type AnswerKey } from '../selection.js';
import { Components, withNull, type JsonSchema } from './components.js';
import { sharedProse } from './prose.js';

/** The JSON Schemas of GraphQL types as the REST adapter sends and takes them: answers from selection sets, bodies from input types. */

/** String fields whose values come from a list the code keeps, though GraphQL types them String. */
const stringDomains: Record<string, readonly string[]> = {
  'BookingEvent.event': logEventTypes,
  'WebhookDelivery.event': webhookEventTypes,
  'WebhookEndpoint.events': webhookEventTypes,
  'CreateWebhookEndpointInput.events': webhookEventTypes,
  'UpdateWebhookEndpointInput.events': webhookEventTypes,
  'SendTestWebhookInput.event': webhookEventTypes,
  'ApiKey.scopes': scopes,
  'CreateApiKeyInput.scopes': scopes,
};

/** A GraphQL answer as REST sends it: enum values in lowercase. */
type RestAnswer<Answer> = { [Key in keyof Answer]: Answer[Key] extends string ? (string extends Answer[Key] ? Answer[Key] : Lowercase<Answer[Key]>) : Answer[Key] };

/** True when each type is assignable to the other. */
type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** `fragment`, which REST answers exactly as `Representation`: a field added to, dropped from or renamed in either one fails to compile. */
const answering =
  <Representation>() =>
  <Answer>(fragment: TypedDocumentNode<Answer, unknown> & (SameShape<RestAnswer<Answer>, Representation> extends true ? unknown : { answersAnotherShape: never })): DocumentNode =>
    fragment;

/** A booking event's data starts with the booking representation (src/bookings/representation.ts), which BookingFields answers. */
const bookingFields = answering<BookingRepresentation>()(BookingFieldsFragmentDoc);
/** A waitlist.offered event's data is the entry representation (src/bookings/holds/hold.ts), which WaitlistEntryFields answers. */
const waitlistEntryFields = answering<WaitlistEntryRepresentation>()(WaitlistEntryFieldsFragmentDoc);

/** A fragment's shape is named after it, without the words that only say what it is for. */
export const componentNameOf = (fragment: string) => fragment.replace(/(Fields|Projection)$/, '');

/** The object type each field belongs to, so a key's schema coordinate (`Booking.startTime`) can be named. */
function fieldOwners(schema: GraphQLSchema): Map<GraphQLField<unknown, unknown>, string> {
  const owners = new Map<GraphQLField<unknown, unknown>, string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type)) for (const field of Object.values(type.getFields())) owners.set(field, type.name);
  }
  return owners;
}

/** Builds one document's schemas against the live GraphQL schema. */
export class Describer {
  readonly components = new Components();
  private readonly owners: Map<GraphQLField<unknown, unknown>, string>;

  constructor(private readonly schema: GraphQLSchema) {
    this.owners = fieldOwners(schema);
  }

  /** Description and examples for a schema coordinate, from the prose or else the schema. */
  private annotate(schema: JsonSchema, coordinate: string, fallback?: string | null): JsonSchema {
    const description = sharedProse.descriptions[coordinate] ?? fallback ?? undefined;
    const examples = sharedProse.examples[coordinate];
    return { ...schema, ...(description ? { description } : {}), ...(examples ? { examples } : {}) };
  }

  enumSchema(type: GraphQLEnumType): JsonSchema {
    return this.components.schema(type.name, () => this.annotate({ type: 'string', enum: type.getValues().map((value) => value.name.toLowerCase()) }, type.name, type.description));
  }

  scalarSchema(type: GraphQLNamedType, coordinate: string): JsonSchema {
    const domain = stringDomains[coordinate];
    if (domain) return { type: 'string', enum: [...domain] };
    switch (type.name) {
      case 'ID':
      case 'String':
        return { type: 'string' };
      case 'Int':
        return { type: 'integer' };
      case 'Float':
        return { type: 'number' };
      case 'Boolean':
        return { type: 'boolean' };
      case 'DateTime':
        return this.components.schema('DateTime', () => this.annotate({ type: 'string', format: 'date-time', pattern: isoUtc.source }, 'DateTime', type.description));
      case 'Date':
        return this.components.schema('Date', () => this.annotate({ type: 'string', format: 'date', pattern: isoDate.source }, 'Date', type.description));
      case 'JSON': {
        // Free-form JSON is the one kind of object left open.
        return coordinate === 'BookingEvent.data' ? { oneOf: [this.bookingEventDataSchema(), this.waitlistOfferDataSchema()] } : {};
      }
      default:
        throw new Error(`The OpenAPI generator has no JSON Schema for the scalar ${type.name}.`);
    }
  }

  /**
   * A booking event's data (src/events/log.ts): the booking's keys, then `previous_attributes` on
   * booking.updated (some of the booking's keys, a nested customer with only its changed fields) and
   * `cancellation` on booking.cancelled.
   */
  private bookingEventDataSchema(): JsonSchema {
    return this.components.schema('BookingEventData', () => {
      const booking = this.closedObject(this.fragmentKeys(bookingFields).children ?? []);
      const properties = booking['properties'] as Record<string, JsonSchema>;
      return {
        ...booking,
        properties: {
          ...properties,
          previous_attributes: {
            type: 'object',
            description: 'booking.updated only: the fields that changed, with their values before the change.',
            properties: { ...properties, customer: { type: 'object', properties: (properties['customer'] as JsonSchema)['properties'], additionalProperties: false } },
            additionalProperties: false,
          },
          cancellation: {
            type: 'object',
            description: 'booking.cancelled only: who cancelled and why.',
            required: ['by', 'reason'],
            properties: {
              by: { type: 'string', description: 'The `key_…` id of the key that cancelled, or `operator` for an admin key.' },
              reason: withNull({ type: 'string', maxLength: 500, description: 'The reason the client sent, or null.' }),
            },
            additionalProperties: false,
          },
        },
      };
    });
  }

  /** A waitlist.offered event's data (src/bookings/holds/hold.ts): the entry as WaitlistEntryFields answers it. */
  private waitlistOfferDataSchema(): JsonSchema {
    return this.components.schema('WaitlistOfferData', () => this.closedObject(this.fragmentKeys(waitlistEntryFields).children ?? []));
  }

  /** The answer keys of a fragment on its own. */
  private fragmentKeys(fragmentDocument: DocumentNode): AnswerKey {
    const fragment = fragmentDocument.definitions.find((definition) => definition.kind === Kind.FRAGMENT_DEFINITION)!;
    const document = parse(`query Shape { node(id: "") { ...${fragment.name.value} } } ${print(fragmentDocument)}`);
    return answerKeysOf(this.schema, document)[0]!;
  }

  /** One key of an answer, as the REST adapter sends it. */
  keySchema(key: AnswerKey): JsonSchema {
    const owner = this.owners.get(key.field) ?? '';
    const coordinate = `${owner}.${key.field.name}`;
    const named = getNamedType(key.type);
    const leaf = (): JsonSchema => {
      if (isConnectionType(key.type)) return { type: 'array', items: this.objectOf(nodeOf(key)) };
      if (key.children) return this.objectOf(key);
      if (isEnumType(named)) return this.enumSchema(named);
      return this.scalarSchema(named, coordinate);
    };
    const schema = isNonNullType(key.type) ? this.notNull(key.type, leaf) : withNull(this.notNull(key.type, leaf));
    return this.annotate(schema, coordinate, key.field.description);
  }

  /** A value of `type` that is not null: lists as arrays (their items null where the type allows), `leaf` for the named type. */
  private notNull(type: GraphQLType, leaf: () => JsonSchema): JsonSchema {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (!isListType(inner)) return leaf();
    const items = this.notNull(inner.ofType, leaf);
    return { type: 'array', items: isNonNullType(inner.ofType) ? items : withNull(items) };
  }

  /** The object a key's selection set makes: its fragment's named shape, or the shape inline. */
  objectOf(key: AnswerKey, name = key.fragment && componentNameOf(key.fragment)): JsonSchema {
    const build = () => this.closedObject(key.children ?? []);
    return name ? this.components.schema(name, () => this.annotate(build(), name)) : build();
  }

  closedObject(keys: readonly AnswerKey[], extra: Record<string, JsonSchema> = {}): JsonSchema {
    const sent = keys.filter((key) => !isHiddenKey(key.key));
    const properties: Record<string, JsonSchema> = Object.fromEntries(sent.map((key) => [key.key, this.keySchema(key)]));
    Object.assign(properties, extra);
    const required = [...sent.filter((key) => !key.includedBy).map((key) => key.key), ...Object.keys(extra)];
    return { type: 'object', required, properties, additionalProperties: false };
  }

  /** A value of an input type as a JSON body takes it: snake_case keys, enums in lowercase, nothing unknown. */
  inputSchema(type: GraphQLInputType, coordinate: string): JsonSchema {
    const named = getNamedType(type);
    if (isEnumType(named)) return this.enumSchema(named);
    if (!isInputObjectType(named)) return this.scalarSchema(named, coordinate);
    const fields = Object.values(named.getFields());
    const properties = Object.fromEntries(
      fields.map((field) => {
        const fieldCoordinate = `${named.name}.${field.name}`;
        // An optional field is left out rather than sent as null.
        const schema = this.notNull(field.type, () => this.inputSchema(field.type, fieldCoordinate));
        const withDefault = field.defaultValue === undefined ? schema : { ...schema, default: this.restValue(field.type, field.defaultValue) };
        return [snakeCaseOf(field.name), this.annotate(withDefault, fieldCoordinate, field.description)];
      }),
    );
    const required = fields.filter((field) => isNonNullType(field.type) && field.defaultValue === undefined).map((field) => snakeCaseOf(field.name));
    return this.annotate({ type: 'object', ...(required.length ? { required } : {}), properties, additionalProperties: false }, named.name, named.description);
  }

  /** A default value as REST writes it (enum values in lowercase). */
  restValue(type: GraphQLInputType, value: unknown): unknown {
    const named = getNamedType(type);
    if (isEnumType(named)) {
      const serialize = (item: unknown) => String(named.serialize(item)).toLowerCase();
      return Array.isArray(value) ? value.map(serialize) : serialize(value);
    }
    return value;
  }

  /** A query, path or header parameter's schema: the variable's type, never null. */
  parameterSchema(type: GraphQLInputType, coordinate: string): JsonSchema {
    return this.notNull(type, () => this.inputSchema(type, coordinate));
  }
}

export function nodeOf(connection: AnswerKey): AnswerKey {
  const node = connection.children?.find((key) => key.key === 'edges')?.children?.find((key) => key.key === 'node');
  if (!node) throw new Error(`${connection.key} selects no edges { node { … } }.`);
  return node;
}
