/**
 * A number written as JSON and GraphQL write one (42, -70.9, .5, 1e3): what the REST adapter and the
 * widget read from text, where Number() would also read hex, binary and blank text (as 0).
 */
export const decimalText = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;
