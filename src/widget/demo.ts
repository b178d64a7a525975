import type { IncomingMessage } from 'node:http';
import { escapeHtml, widgetSnippet, type SnippetValue } from './snippet.js';

/**
 * /widget/demo: the snippet, filled in from the query (?token=wt_…&city=&category=&theme=&places=&from=&to=&near=&service=), and
 * the same snippet live. The page is on the API's own origin, where a widget token works whatever
 * its allowed origins, so any valid token shows the widget here.
 */

const themes = ['pumpkin', 'midnight', 'classic'];
const containerId = 'halloween-events';

function publicOrigin(request: IncomingMessage): string {
  const forwarded = request.headers['x-forwarded-proto'];
  const protocol = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim() === 'https' ? 'https' : 'http';
  return `${protocol}://${request.headers.host ?? 'localhost:4000'}`;
}

function field(label: string, name: string, value: string, hint: string): string {
  return `<label>${label} <input name="${name}" value="${escapeHtml(value)}" placeholder="${escapeHtml(hint)}"></label>`;
}

export function demoPage(request: IncomingMessage, query: URLSearchParams, nonce: string): string {
  const token = query.get('token')?.trim() ?? '';
  const city = query.get('city')?.trim() || 'Salem';
  const category = query.get('category')?.trim() ?? 'haunted-house';
  const theme = themes.includes(query.get('theme') ?? '') ? query.get('theme')! : 'pumpkin';
  const origin = publicOrigin(request);
  const service = query.get('service')?.trim() ?? '';
  const places = query.get('places')?.trim() ?? '';
  // The window places are counted in (both ends, or tonight): the seeded services open in another season than today's.
  const from = query.get('from')?.trim() ?? '';
  const to = query.get('to')?.trim() ?? '';
  const near = query.get('near')?.trim() ?? '';
  const placesOptions = places ? { places: Number(places) || places, ...(from && to ? { window: { from, to } } : {}) } : {};
  // A service id makes the booking view, which takes no directory filters.
  const filters: Record<string, SnippetValue> = service ? { service } : { city, ...(category ? { category } : {}), ...placesOptions, ...(near ? { near } : {}) };
  const options = { token: token || 'wt_…', ...filters, theme, attributionLink: `${origin}/widget/demo` };
  const shown = widgetSnippet({ scriptUrl: `${origin}/widget.v1.js`, containerId, options });
  // The live copy loads the script by path, so it comes from this page's own origin as the CSP asks.
  const live = widgetSnippet({ scriptUrl: '/widget.v1.js', containerId, options: { ...options, token }, nonce });
  const themeOptions = themes.map((name) => `<option${name === theme ? ' selected' : ''}>${name}</option>`).join('');

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Halloween events widget: demo</title>
<style nonce="${escapeHtml(nonce)}">
body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;padding:24px 16px;max-width:72rem;color:#1f2937}
h1{font-size:1.6rem;margin:0 0 .5rem}
.columns{display:grid;gap:24px;grid-template-columns:repeat(auto-fit,minmax(min(100%,24rem),1fr));align-items:start}
form{display:flex;flex-wrap:wrap;gap:8px 12px;align-items:end;margin:16px 0}
label{display:grid;font-size:.875rem;font-weight:600}
input,select,button{font:inherit;padding:6px 8px;border:1px solid #9ca3af;border-radius:6px}
button{background:#1f2937;color:#fff;border-color:#1f2937;cursor:pointer}
pre{background:#111827;color:#f9fafb;padding:16px;border-radius:8px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8125rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
.note{background:#fef3c7;border-left:4px solid #d97706;padding:8px 12px}
</style>
</head>
<body>
<main>
<h1>Halloween events widget</h1>
<p>Paste the snippet into any page. It loads <code>widget.v1.js</code> asynchronously and renders the
events of a city, in a shadow root that the page's CSS cannot reach.</p>
${
  token
    ? ''
    : `<p class="note">Enter a widget token (<code>wt_…</code>) to see live events. Create one with
<code>npx hallowgate widget-tokens create --account acct_… --origins https://your-site.example</code>
or <code>POST /v1/admin/widget_tokens</code>. This page runs on the API's own origin, where any valid
widget token works; on your site, the token works only from its allowed origins.</p>`
}
<form method="get" action="/widget/demo">
${field('Token', 'token', token, 'wt_…')}
${field('City', 'city', city, 'Salem')}
${field('Category', 'category', category, 'haunted-house')}
${field('Places for', 'places', places, '6')}
${field('Places from', 'from', from, '2027-10-30T22:00:00Z')}
${field('until', 'to', to, '2027-10-31T04:00:00Z')}
${field('Near', 'near', near, 'me')}
<label>Theme <select name="theme">${themeOptions}</select></label>
${field('Service (booking)', 'service', service, 'svc_…')}
<button type="submit">Show</button>
</form>
<div class="columns">
<section>
<h2>Snippet</h2>
<pre><code>${escapeHtml(shown)}</code></pre>
<p>Options: <code>token</code> (required), <code>city</code>, <code>category</code> (a slug such as
<code>haunted-house</code>), <code>theme</code> (<code>pumpkin</code>, <code>midnight</code> or
<code>classic</code>), <code>attributionLink</code>, <code>limit</code> (1–100, default 10) and
<code>apiBase</code> (defaults to where the script came from). With <code>places</code> (a party
size, 1–100) each event shows the places left for that party tonight, or in <code>window</code>
(<code>{ from, to }</code>), live; with <code>near</code> (<code>"me"</code>, asked when the visitor
presses Near me, or <code>"lat,lng"</code>) and <code>radius</code> (km, default 25) the nearest
events come first. With <code>service</code> (a
<code>svc_…</code> id) the widget books that service instead: its slots for the next <code>days</code>
(1–30, default 7), a hold while the visitor fills in name and email, or the waitlist when a slot is
full; the token must be created with <code>--booking</code>.</p>
</section>
<section>
<h2>Live</h2>
${live}
</section>
</div>
</main>
</body>
</html>
`;
}
