import { createClient, type Client, type ClientOptions } from 'graphql-ws';
import WebSocket from 'ws';

/** A graphql-ws client of the server at `baseUrl` that connects at once with `credential` and never retries. */
export function graphqlWsClient(baseUrl: string, credential: string, options: Partial<ClientOptions> = {}): Client {
  return createClient({
    url: `${baseUrl.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${credential}` },
    retryAttempts: 0,
    lazy: false,
    ...options,
  });
}

/** The `ws` client class for graphql-ws, sending `origin` as a browser page on that origin would. */
export function webSocketFrom(origin: string | undefined) {
  if (!origin) return WebSocket;
  return class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { origin });
    }
  };
}
