import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { introspectionFromSchema } from 'graphql';
import type { GraphiQLOptions } from 'graphql-yoga';
import { AppError } from '../shared/errors.js';
import { requireReadMethod, sendPage } from './static-assets.js';

/**
 * GraphiQL from the gateway itself: Yoga's bundled build (@graphql-yoga/render-graphiql) split into
 * files under /graphiql/, so the page loads nothing from anywhere else and runs under a policy that
 * admits only this origin (and the data: fonts and images inside GraphiQL's own stylesheet), offline
 * and behind proxies that block CDNs alike.
 */

export const graphiqlOptions: GraphiQLOptions = {
  title: 'hallowgate',
  // Subscriptions as server-sent events over fetch carry the Headers editor's Authorization like any
  // request; GraphiQL's graphql-ws sends no headers in connection_init, so the socket is refused.
  subscriptionsProtocol: 'SSE',
  defaultQuery:
    '# Docs (the book icon) and completion work as they are. To run an operation, put your API key\n# (npm start prints one: key_….sk_…) in the Authorization header under Headers, then run:\n{\n  viewer { accountId scopes }\n}\n',
  defaultHeaders: '{\n  "Authorization": "Bearer <KEY_ID>.<SECRET>"\n}',
};

const assetPrefix = '/graphiql/';
/** The gateway's schema as an introspection result, for GraphiQL's Docs and completion. */
const schemaFile = 'schema.json';

const workerPaths = { editorWorkerService: 'editor.worker.js', json: 'json.worker.js', graphql: 'graphql.worker.js' } as const;

/**
 * Scripts, workers, connections (HTTP and WebSocket) and files only from this origin. Styles may also
 * be inline: the editor (Monaco) and GraphiQL's popovers set style attributes and style elements as
 * they run; that loads nothing from elsewhere.
 */
export const graphiqlContentSecurityPolicy =
  "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self' data:; manifest-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The page: a stylesheet, one script, and the options as a data block (not run, so the policy needs no inline script). */
function page(): string {
  // `<` escaped so no option text can close the data block.
  const options = JSON.stringify(graphiqlOptions).replaceAll('<', '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(graphiqlOptions.title ?? 'GraphiQL')}</title>
    <link rel="icon" href="${assetPrefix}favicon.ico" />
    <link rel="stylesheet" href="${assetPrefix}graphiql.css" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-options">${options}</script>
    <script src="${assetPrefix}graphiql.js"></script>
  </body>
</html>
`;
}

interface Asset {
  contentType: string;
  body: Buffer;
  gzip?: Buffer;
  etag: string;
}

function asset(contentType: string, body: Buffer): Asset {
  return { contentType, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** The bundle is about 9 MB: loaded on the first request for it, not when the server starts. */
let assets: Promise<Map<string, Asset>> | undefined;

async function loadAssets(): Promise<Map<string, Asset>> {
  const bundle = await import('@graphql-yoga/render-graphiql/graphiql');
  const javascript = 'application/javascript; charset=utf-8';
  // Monaco asks where its workers are; they are files of this origin, not blob: URLs.
  const environment = `self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: function (moduleId, label) { return ${JSON.stringify(
    Object.fromEntries(Object.entries(workerPaths).map(([label, file]) => [label, assetPrefix + file])),
  )}[label]; } };\n`;
  // GraphiQL is given the schema (schema.json, public as the OpenAPI documents are) rather than
  // introspecting with the page's placeholder key, which the gateway refuses: Docs and completion
  // work before a key is typed, and nothing is sent until an operation is run. Without the file (an
  // older cached page), GraphiQL introspects as it would by itself.
  const start = `
;(function () {
  var options = JSON.parse(document.getElementById('graphiql-options').textContent);
  var render = function () { YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), options); };
  fetch('${assetPrefix}${schemaFile}')
    .then(function (response) { return response.ok ? response.json() : undefined; })
    .then(function (introspection) { if (introspection) options.schema = introspection; }, function () {})
    .then(render);
})();
`;
  const { schema } = await import('../graphql/schema.js');
  const favicon = bundle.favicon.replace(/^data:[^,]*;base64,/, '');
  return new Map([
    ['graphiql.js', asset(javascript, Buffer.from(environment + bundle.js + start))],
    ['graphiql.css', asset('text/css; charset=utf-8', Buffer.from(bundle.css))],
    ['favicon.ico', asset('image/x-icon', Buffer.from(favicon, 'base64'))],
    [
      schemaFile,
      asset(
        'application/json; charset=utf-8',
        Buffer.from(JSON.stringify(introspectionFromSchema(schema, { descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true }))),
      ),
    ],
    [workerPaths.editorWorkerService, asset(javascript, Buffer.from(bundle.editorWorkerService))],
    [workerPaths.json, asset(javascript, Buffer.from(bundle.jsonWorker))],
    [workerPaths.graphql, asset(javascript, Buffer.from(bundle.graphqlWorker))],
  ]);
}

export function sendGraphiQLPage(request: IncomingMessage, response: ServerResponse): void {
  sendPage(request, response, page(), graphiqlContentSecurityPolicy);
}

/** For the HTTP server's serveAsset hook: GraphiQL's script, stylesheet, workers and icon. */
export async function serveGraphiQLAsset(request: IncomingMessage, response: ServerResponse, url: URL): Promise<boolean> {
  if (!url.pathname.startsWith(assetPrefix)) return false;
  requireReadMethod(request);
  assets ??= loadAssets();
  const found = (await assets).get(url.pathname.slice(assetPrefix.length));
  if (!found) throw new AppError('not_found', 'No such GraphiQL file.');
  // Compressed once, when first asked for that way (gzip: brotli's best levels take seconds on 5 MB).
  const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '') ? (found.gzip ??= gzipSync(found.body, { level: 9 })) : undefined;
  const etag = gzip ? found.etag.replace(/"$/, '-gzip"') : found.etag;
  // The files change only with the package version: revalidated after a day.
  const headers: Record<string, string> = { etag, 'cache-control': 'public, max-age=86400', vary: 'Accept-Encoding', 'x-content-type-options': 'nosniff' };
  if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
    response.writeHead(304, headers);
    response.end();
    return true;
  }
  const body = gzip ?? found.body;
  response.writeHead(200, { ...headers, 'content-type': found.contentType, 'content-length': String(body.length), ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
  response.end(request.method === 'HEAD' ? undefined : body);
  return true;
}
