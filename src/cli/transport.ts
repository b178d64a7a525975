import { pathOf, type AdminRequest } from './commands.js';

export interface AdminResponse {
  status: number;
  body: unknown;
}

export interface Transport {
  send(request: AdminRequest): Promise<AdminResponse>;
  close(): Promise<void>;
}

/** Through a running server's /v1/admin routes, with an operator key. */
export function serverTransport(serverUrl: string, adminKey: string): Transport {
  return {
    async send(request) {
      const response = await fetch(new URL(pathOf(request), serverUrl), {
        method: request.method,
        headers: {
          authorization: `Bearer ${adminKey}`,
          accept: 'application/json',
          ...(request.body ? { 'content-type': 'application/json' } : {}),
        },
        ...(request.body ? { body: JSON.stringify(request.body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async close() {},
  };
}
