/**
 * Marks a number argument with the values its field takes, in JSON Schema's words, so the OpenAPI
 * documents state them to generated clients. The field's own rules still refuse the rest.
 */
export const argumentRange = 'hallowgateRange';

export interface NumberRange {
  minimum: number;
  maximum: number;
  /** The minimum itself is refused. */
  exclusiveMinimum?: boolean;
}

/** An argument's extensions that give its range. */
export const rangeExtension = (range: NumberRange) => ({ [argumentRange]: range });

export const isInRange = (value: number, range: NumberRange): boolean => (range.exclusiveMinimum ? value > range.minimum : value >= range.minimum) && value <= range.maximum;

/** The range as JSON Schema (2020-12, OpenAPI 3.1) writes it. */
export const jsonSchemaOfRange = (range: NumberRange) =>
  range.exclusiveMinimum ? { exclusiveMinimum: range.minimum, maximum: range.maximum } : { minimum: range.minimum, maximum: range.maximum };
