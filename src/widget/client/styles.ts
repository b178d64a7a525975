import type { Theme } from './settings.js';

/**
 * Colours per theme. Every text/background pair passes WCAG AA (4.5:1); the browser tests
 * measure it.
 */
const palettes: Record<Theme, Record<string, string>> = {
  pumpkin: {
    bg: '#fff7ed',
    card: '#ffffff',
    text: '#2b1608',
    muted: '#6b3d1e',
    border: '#fbd5b0',
    'header-bg': '#c2410c',
    'header-text': '#ffffff',
    'header-muted': '#fff7ed',
    link: '#9a3412',
    error: '#b91c1c',
    focus: '#1d4ed8',
  },
  midnight: {
    bg: '#0f0b1e',
    card: '#1b1430',
    text: '#f5f3ff',
    muted: '#c4b5fd',
    border: '#3b2f63',
    'header-bg': '#1b1430',
    'header-text': '#fdba74',
    'header-muted': '#ddd6fe',
    link: '#fdba74',
    error: '#fca5a5',
    focus: '#fde68a',
  },
  classic: {
    bg: '#f9fafb',
    card: '#ffffff',
    text: '#111827',
    muted: '#4b5563',
    border: '#d1d5db',
    'header-bg': '#111827',
    'header-text': '#ffffff',
    'header-muted': '#d1d5db',
    link: '#1d4ed8',
    error: '#b91c1c',
    focus: '#1d4ed8',
  },
};

const themeRules = (Object.keys(palettes) as Theme[])
  .map((theme) => {
    const variables = Object.entries(palettes[theme]).map(([name, value]) => `--${name}:${value}`);
    return `.widget[data-theme=${theme}]{${variables.join(';')}}`;
  })
  .join('');

/*
 * The shadow root keeps the host's selectors out, but inherited properties (font, colour,
 * line-height, letter-spacing…) still flow in through the host element: `all: initial` on the
 * top element stops them. Sizes are in px/em, never rem, so the host's root font size does not count.
 */
export const css = `
:host{display:block}
.widget{all:initial;display:block;box-sizing:border-box;container-type:inline-size;
font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
color:var(--text);background:var(--bg);border:1px solid var(--border);border-radius:12px;overflow:hidden;text-align:start}
.widget *,.widget *::before,.widget *::after{box-sizing:border-box}
.header{background:var(--header-bg);color:var(--header-text);padding:14px 16px}
h2{margin:0;font-size:1.125em;font-weight:700;line-height:1.3}
.subtitle{margin:2px 0 0;font-size:.875em;color:var(--header-muted)}
.events{list-style:none;margin:0;padding:10px;display:grid;gap:10px}
.event{position:relative;display:grid;gap:10px 14px;padding:12px;background:var(--card);border:1px solid var(--border);border-radius:10px;min-width:0}
.image{display:block;width:100%;height:auto;aspect-ratio:2/1;object-fit:cover;border-radius:8px;background:var(--border)}
@container (min-width:26em){.event.has-image{grid-template-columns:112px minmax(0,1fr);align-items:start}.image{aspect-ratio:4/3}}
h3{margin:0;font-size:1em;font-weight:700;line-height:1.3;overflow-wrap:anywhere}
a{color:var(--link);text-decoration:underline;text-underline-offset:2px}
a:hover{text-decoration-thickness:2px}
a:focus-visible,button:focus-visible{outline:3px solid var(--focus);outline-offset:2px;border-radius:2px}
.title a::after{content:"";position:absolute;inset:0;border-radius:10px}
p{margin:4px 0 0;font-size:.9375em;overflow-wrap:anywhere}
.when{font-weight:600}
.where,.price{color:var(--muted)}
.status{margin:0;padding:24px 16px;text-align:center;color:var(--text)}
.status[data-kind=error]{color:var(--error)}
.retry{display:block;margin:-8px auto 20px;font:inherit;font-size:.875em;font-weight:600;padding:8px 16px;min-height:44px;
border:0;border-radius:8px;background:var(--link);color:var(--card);cursor:pointer}
.content>.party,.content>.held,.day,.customer{margin:0;padding:0 16px 12px}
.day h3{margin:8px 0 6px;font-size:.9375em}
.slots{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:8px}
.slot,.primary,.secondary{font:inherit;font-size:.875em;font-weight:600;min-height:44px;padding:8px 12px;border-radius:8px;cursor:pointer}
.slot,.primary{border:0;background:var(--link);color:var(--card)}
.slot.full,.secondary{border:1px solid var(--muted);background:var(--card);color:var(--text)}
.field{margin:0 0 10px;display:grid;gap:4px}
label{font-size:.875em;font-weight:600}
input{font:inherit;color:var(--text);background:var(--card);border:1px solid var(--muted);border-radius:8px;padding:8px 10px;min-height:44px}
.party input{width:5em;margin-inline-start:8px}
.actions{display:flex;gap:8px;margin:0}
.countdown{font-weight:700;font-variant-numeric:tabular-nums}
.places{font-weight:700}
.places[data-places=few]{color:var(--link)}
.places[data-places=sold-out]{color:var(--error)}
.near-bar{display:flex;flex-wrap:wrap;gap:8px 12px;align-items:center;padding:12px 16px 0}
.location{margin:0;font-size:.875em}
.location:empty{display:none}
input:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.footer{padding:10px 16px;font-size:.8125em;border-top:1px solid var(--border);text-align:end;color:var(--muted)}
.hidden{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
${themeRules}`;
