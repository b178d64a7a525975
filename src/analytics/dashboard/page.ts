import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';

/** uPlot's own stylesheet, inlined under the page's nonce (the CSP allows no other styles). */
const uplotCss = readFileSync(join(dirname(createRequire(import.meta.url).resolve('uplot')), 'uPlot.min.css'), 'utf8');

const pageCss = `
[hidden] { display: none !important; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
:root { color-scheme: light; font-family: system-ui, sans-serif; color: #1c1917; background: #fafaf9; }
body { margin: 0 auto; max-width: 72rem; padding: 1.5rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; } h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
form#login { display: flex; gap: .5rem; flex-wrap: wrap; align-items: end; }
label { display: grid; gap: .25rem; font-weight: 600; }
input, select, button { font: inherit; padding: .45rem .6rem; border: 1px solid #a8a29e; border-radius: .4rem; }
input#key { width: min(32rem, 90vw); }
button { background: #c2410c; color: #fff; border-color: #9a3412; cursor: pointer; }
button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.alert { color: #b91c1c; min-height: 1.5em; }
.grid { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); }
section.card { background: #fff; border: 1px solid #e7e5e4; border-radius: .6rem; padding: 1rem; }
.wide { grid-column: 1 / -1; }
fieldset { border: 0; padding: 0; margin: 0 0 .75rem; display: flex; gap: 1rem; flex-wrap: wrap; align-items: center; }
fieldset label { display: inline-flex; font-weight: 400; gap: .3rem; align-items: center; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; } th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid #e7e5e4; }
ol, ul { margin: 0; padding-left: 1.2rem; font-size: .9rem; } li { margin: .2rem 0; }
li.new { background: #ffedd5; } li.empty { list-style: none; color: #57534e; margin-left: -1.2rem; }
meter { width: 100%; height: 1rem; }
#feed-status { font-weight: 600; }
header { display: flex; justify-content: space-between; gap: 1rem; align-items: center; margin-bottom: 1rem; flex-wrap: wrap; }
`;

/** The dashboard's HTML; everything in it is static, the script fills it in. */
export function dashboardPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hallowgate dashboard</title>
<style nonce="${nonce}">${uplotCss}${pageCss}</style>
</head>
<body>
<h1>hallowgate dashboard</h1>
<form id="login" autocomplete="off">
  <label for="key">API key <input id="key" name="key" type="password" required autocomplete="off" spellcheck="false" placeholder="key_….sk_…"></label>
  <button type="submit">Show usage</button>
  <p id="login-error" class="alert" role="alert"></p>
  <p>The key stays in this page while it is open: it is not stored anywhere. It needs the <code>analytics:read</code> and <code>bookings:read</code> scopes.</p>
</form>
<main id="dashboard" hidden>
  <header><p id="who"></p><button id="sign-out" type="button">Sign out</button></header>
  <p id="error" class="alert" role="alert"></p>
  <div class="grid">
    <section class="card wide" aria-labelledby="usage-heading">
      <h2 id="usage-heading">Requests</h2>
      <form id="controls">
        <fieldset><legend class="visually-hidden">Granularity</legend>
          <label><input type="radio" name="granularity" id="granularity-minute" value="minute" checked> per minute</label>
          <label><input type="radio" name="granularity" id="granularity-hour" value="hour"> per hour</label>
          <label>Range <select id="range"><option value="hour">last hour</option><option value="day">last 24 hours</option></select></label>
        </fieldset>
      </form>
      <div id="usage-chart" role="img"></div>
    </section>
    <section class="card" aria-labelledby="limit-heading">
      <h2 id="limit-heading">Rate limit</h2>
      <meter id="rate-meter" min="0" hidden></meter>
      <p id="rate-limit"></p>
    </section>
    <section class="card" aria-labelledby="alerts-heading">
      <h2 id="alerts-heading">Recent alerts</h2>
      <ul id="alerts"></ul>
    </section>
    <section class="card wide" aria-labelledby="routes-heading">
      <h2 id="routes-heading">Routes</h2>
      <table><thead><tr><th scope="col">Route or operation</th><th scope="col">Requests</th><th scope="col">Errors</th><th scope="col">Mean latency</th></tr></thead><tbody id="routes"></tbody></table>
    </section>
    <section class="card wide" aria-labelledby="feed-heading">
      <h2 id="feed-heading">Booking events <span id="feed-status" aria-live="polite"></span></h2>
      <ol id="feed" aria-live="polite" reversed></ol>
    </section>
  </div>
</main>
<script src="/dashboard.js" nonce="${nonce}" defer></script>
</body>
</html>`;
}
