import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from '../events/cluster.js';

/** A span as an OTLP/HTTP receiver decodes it from the JSON protocol, its attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  statusCode: number;
  resource: Record<string, unknown>;
}

export const spanKinds = { internal: 1, server: 2, client: 3 } as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttributes;
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: OtlpAttributes }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function valueOf(value: OtlpValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}

function attributesOf(attributes: OtlpAttributes): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

/**
 * An OTLP/HTTP receiver on loopback, as a collector would be: it decodes every export of the JSON
 * protocol into spans, keeps each body as it came (for searches through everything sent), and
 * counts the protobuf ones it cannot read as JSON.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const paths: string[] = [];
  const contentTypes: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  /** The status the receiver answers exports with: a collector that refuses them answers 500 and keeps none. */
  let status = 200;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      headers.push(request.headers);
      if (status !== 200) {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end('{}');
        return;
      }
      paths.push(request.url ?? '');
      contentTypes.push(request.headers['content-type'] ?? '');
      bodies.push(body.toString('utf8'));
      if (request.headers['content-type']?.startsWith('application/json')) {
        const exported = JSON.parse(body.toString('utf8')) as OtlpExport;
        for (const resourceSpans of exported.resourceSpans ?? []) {
          const resource = attributesOf(resourceSpans.resource?.attributes);
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
                statusCode: span.status?.code ?? 0,
                resource,
              });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    paths,
    contentTypes,
    headers,
    answerWith: (code: number) => void (status = code),
    /** The spans of one trace. */
    trace: (traceId: string) => spans.filter((span) => span.traceId === traceId),
    /** The spans whose parent is `parent`. */
    childrenOf: (parent: ReceivedSpan) => spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;

/**
 * Waits until `arrived` holds of what a receiver got, asking `tracing` to send the spans ended so far
 * each time it does not: a span may end after its answer was read, and batches go out on a timer.
 */
export async function untilExported(tracing: { flush(): Promise<void> }, arrived: () => boolean, what: string): Promise<void> {
  await until(
    () => {
      if (arrived()) return true;
      void tracing.flush();
      return false;
    },
    what,
    10_000,
  );
}
