import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { scriptHandler, sendPage } from '../../server/static-assets.js';
import { dashboardPage } from './page.js';
import { dashboardBundlePath } from './paths.js';

/** Serves /dashboard and its script; the page talks to /graphql on the same origin. */
const serveScript = scriptHandler({
  path: dashboardBundlePath,
  // Revalidated after five minutes: a deploy reaches open dashboards at their next load.
  cacheControl: 'public, max-age=300',
  buildCommand: 'npm run build:dashboard',
});

/** For the HTTP server's serveAsset hook: true when the path was one of the dashboard's. */
export async function serveDashboardAsset(request: IncomingMessage, response: ServerResponse, url: URL): Promise<boolean> {
  if (url.pathname === '/dashboard.js') {
    await serveScript(request, response);
    return true;
  }
  if (url.pathname === '/dashboard') {
    const nonce = randomBytes(16).toString('base64');
    // CSP 3: 'self' also admits ws: and wss: to this host, for the live feed.
    sendPage(
      request,
      response,
      dashboardPage(nonce),
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`,
    );
    return true;
  }
  return false;
}
