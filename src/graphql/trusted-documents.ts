import type { DocumentNode } from 'graphql';

/**
 * Documents the gateway runs itself (the REST table's). Their worst case is bounded by the REST
 * limits they are documented with, and REST keeps their answers itself, so the cost limit and
 * kept answers, which are for documents clients write, pass them by.
 */
const trustedDocuments = new WeakSet<DocumentNode>();

export function trustDocument(document: DocumentNode): void {
  trustedDocuments.add(document);
}

export function isTrustedDocument(document: DocumentNode): boolean {
  return trustedDocuments.has(document);
}
