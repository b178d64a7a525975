import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { scriptHandler, sendPage } from '../server/static-assets.js';
import { demoPage } from './demo.js';
import { widgetBundlePath } from './paths.js';

/**
 * Serves /widget.v1.js and /widget/demo. The script is cached by browsers and CDNs for a day and
 * then revalidated by ETag: its name carries the major version, so fixes within v1 reach every
 * page by the next day without anyone editing their snippet.
 */
const serveScript = scriptHandler({
  path: widgetBundlePath,
  cacheControl: 'public, max-age=86400, stale-while-revalidate=604800',
  // Any site may embed the script, also pages that isolate themselves with COEP.
  headers: { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' },
  buildCommand: 'npm run build:widget',
});

function serveDemo(request: IncomingMessage, response: ServerResponse, url: URL): void {
  const nonce = randomBytes(16).toString('base64');
  // Strict on purpose: the widget must work on pages that allow no inline styles.
  sendPage(
    request,
    response,
    demoPage(request, url.searchParams, nonce),
    `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  );
}

/** For the HTTP server's serveAsset hook: true when the path was one of the widget's. */
export async function serveWidgetAsset(request: IncomingMessage, response: ServerResponse, url: URL): Promise<boolean> {
  if (url.pathname === '/widget.v1.js') {
    await serveScript(request, response);
    return true;
  }
  if (url.pathname === '/widget/demo') {
    serveDemo(request, response, url);
    return true;
  }
  return false;
}
