import { parse, print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { restDocuments } from '../../src/rest/document-transform.js';

const transformed = (...sources: string[]) => restDocuments(sources.map((source) => parse(source))).map((document) => print(document));

describe('the REST operations as codegen completes them', () => {
  it('answers every field below the root under its REST name, keeping the root, pageInfo and explicit aliases', () => {
    const [document] = transformed(`
      query List($first: Int) {
        bookingEvents(first: $first) {
          edges { node { createdAt customer { emailAddress } ... on Node { updatedAt } } }
          pageInfo { hasNextPage endCursor }
        }
        bookingsLastModified
      }
      fragment Shape on Booking { startTime _modified: updatedAt token: id }
    `);
    expect(document).toContain('bookingEvents(first: $first)');
    expect(document).toContain('created_at: createdAt');
    expect(document).toContain('email_address: emailAddress');
    expect(document).toContain('updated_at: updatedAt');
    expect(document).toContain('pageInfo {\n      hasNextPage\n      endCursor');
    expect(document).toContain('bookingsLastModified');
    expect(document).toContain('start_time: startTime');
    expect(document).toContain('_modified: updatedAt');
    expect(document).toContain('token: id');
  });

  it('refuses an alias that only repeats the REST name, so each name is written once', () => {
    expect(() => transformed('fragment Shape on Booking { start_time: startTime }')).toThrow(/write startTime alone/);
  });

  it("declares the fragments' @include and @skip switches on each operation that spreads them, before its own variables", () => {
    const [fragment, operations] = transformed(
      'fragment Projection on Event { id title @include(if: $withTitle) images @skip(if: $skipImages) { url } ...More }  fragment More on Event { city @include(if: $withCity) title @include(if: $withTitle) }',
      'query One($id: ID!) { event(id: $id) { ...Projection } }  query Plain($withTitle: Boolean) { event(id: "1") { title @include(if: $withTitle) } }',
    );
    expect(fragment).toContain('fragment Projection');
    expect(operations).toContain('query One($withTitle: Boolean!, $skipImages: Boolean!, $withCity: Boolean!, $id: ID!)');
    // A switch the operation declares itself is left as it is.
    expect(operations).toContain('query Plain($withTitle: Boolean)');
  });
});
