import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { ExecutionArgs } from 'graphql';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { AccessGate, Admission } from '../access/gate.js';
import type { UsageRecorder } from '../analytics/recorder.js';
import { graphqlRouteOf } from '../analytics/tracking.js';
import { maskGraphQLError } from '../graphql/errors.js';
import { AppError } from '../shared/errors.js';
import type { Yoga } from './yoga.js';

type Enveloped = ReturnType<Yoga['getEnveloped']>;

/** Headers a client may send in connection_init's payload: the credential and, for signing keys, the signature of GET /graphql. */
const credentialParams = ['authorization', 'x-signature', 'x-signature-timestamp'];

function credentialHeaders(params: Record<string, unknown>): Record<string, string | undefined> {
  const lowerCased = Object.fromEntries(Object.entries(params).map(([name, value]) => [name.toLowerCase(), value]));
  return Object.fromEntries(
    credentialParams.map((name) => {
      const value = lowerCased[name];
      return [name, typeof value === 'string' ? value : undefined];
    }),
  );
}

type SocketExtra = Extra & { admission?: Admission; requestId?: string };

export interface GraphQLWebSocket {
  /** Closes every socket with 1001 (going away) and stops accepting new ones. */
  close(): Promise<void>;
}

/**
 * graphql-ws on the same path as HTTP GraphQL. Operations go through Yoga's envelop pipeline,
 * so scopes, limits and error masking are the same as over HTTP.
 */
export function attachGraphQLWebSocket(httpServer: Server, yoga: Yoga, gate: AccessGate, usage?: UsageRecorder): GraphQLWebSocket {
  const webSocketServer = new WebSocketServer({ server: httpServer, path: '/graphql' });
  // The ws server re-emits the HTTP server's errors (EADDRINUSE); listen() already reports those.
  webSocketServer.on('error', () => undefined);

  const disposable = useServer<Record<string, unknown> | undefined, { admission: Admission; requestId: string }>(
    {
      onConnect: async (ctx) => {
        const extra = ctx.extra as SocketExtra;
        try {
          extra.admission = await gate.admit({
            method: 'GET',
            target: '/graphql',
            headers: { ...extra.request.headers, ...credentialHeaders(ctx.connectionParams ?? {}) },
            remoteAddress: extra.request.socket.remoteAddress ?? '',
            body: Buffer.alloc(0),
          });
          extra.requestId = `req_${randomUUID().replaceAll('-', '')}`;
          return true;
        } catch (error) {
          if (error instanceof AppError) return false;
          throw error;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        const extra = ctx.extra as SocketExtra;
        const { principal } = extra.admission!;
        // Analytics count each operation start once, with the status it would have had over HTTP.
        const recordStart = (status: number) => {
          if (usage && principal?.kind === 'api_key') {
            usage.record({ apiKeyId: principal.keyId, route: graphqlRouteOf(payload), status, latencyMs: 0, bytes: 0 });
          }
        };
        if (principal) {
          try {
            await gate.meter(principal);
          } catch (error) {
            if (error instanceof AppError) {
              recordStart(error.status);
              return [maskGraphQLError(error)];
            }
            throw error;
          }
        }
        const enveloped: Enveloped = yoga.getEnveloped({
          ...ctx,
          req: extra.request,
          socket: extra.socket,
          params: payload,
          admission: extra.admission!,
          requestId: extra.requestId!,
        });
        const document = enveloped.parse(payload.query);
        const errors = enveloped.validate(enveloped.schema, document);
        recordStart(errors.length > 0 ? 400 : 200);
        if (errors.length > 0) return errors;
        const args: ExecutionArgs = {
          schema: enveloped.schema,
          operationName: payload.operationName ?? null,
          document,
          variableValues: payload.variables ?? null,
          contextValue: await enveloped.contextFactory(),
          rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
        };
        return args;
      },
      execute: (args) => (args.rootValue as Pick<Enveloped, 'execute'>).execute(args),
      subscribe: (args) => (args.rootValue as Pick<Enveloped, 'subscribe'>).subscribe(args),
    },
    webSocketServer,
  );

  return {
    async close() {
      for (const client of webSocketServer.clients) client.close(1001, 'Server shutting down');
      await disposable.dispose();
      await new Promise<void>((resolve) => webSocketServer.close(() => resolve()));
    },
  };
}
