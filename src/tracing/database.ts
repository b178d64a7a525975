import { SpanKind } from '@opentelemetry/api';
import type { PreparedRead, ReadRows } from '../db/connection.js';
import { activeTracer, endSpan, startChildSpan } from './tracing.js';

/**
 * The span of one SQL statement: named by its first keyword (SELECT, INSERT, …), with the text as
 * sent, placeholders and all; parameter values are never read, so none can reach a span.
 */
function statementSpan(text: string, startTime?: Date) {
  return startChildSpan(
    () => {
      const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
      // db.system for backends that still key on the older name, db.system.name for current ones.
      return { name: operation, attributes: { 'db.system': 'postgresql', 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.text': text } };
    },
    SpanKind.CLIENT,
    startTime,
  );
}

/** Records a statement Prisma ran (its query event: when it started and how long it took), under the span it ran in. */
export function recordStatement(text: string, startedAt: Date, durationMs: number): void {
  statementSpan(text, startedAt)?.end(new Date(startedAt.getTime() + durationMs));
}

/** `readRows` with a span per read when tracing is on; itself when off. */
export function tracedReads(readRows: ReadRows): ReadRows {
  if (!activeTracer()) return readRows;
  return async <Row>(read: PreparedRead) => {
    const span = statementSpan(read.text);
    try {
      const rows = await readRows<Row>(read);
      span?.end();
      return rows;
    } catch (error) {
      if (span) endSpan(span, error);
      throw error;
    }
  };
}
