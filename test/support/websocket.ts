import WebSocket from 'ws';

/** The `ws` client class for graphql-ws, sending `origin` as a browser page on that origin would. */
export function webSocketFrom(origin: string | undefined) {
  if (!origin) return WebSocket;
  return class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { origin });
    }
  };
}
