import type { DocumentNode } from 'graphql';

/**
 * The REST table's operation documents, which the gateway runs itself. Their worst case is bounded by
 * the REST limits they are documented with, and the REST router caches their representations itself,
 * so the cost limit and the GraphQL response cache, which are for documents clients write, pass them by.
 */
const restOperationDocuments = new WeakSet<DocumentNode>();

export function markRestOperationDocument(document: DocumentNode): void {
  restOperationDocuments.add(document);
}

export function isRestOperationDocument(document: DocumentNode): boolean {
  return restOperationDocuments.has(document);
}
