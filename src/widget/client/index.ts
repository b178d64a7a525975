/**
 * widget.v1.js: defines window.HalloweenEvents and runs the render() calls a page queued before
 * this script loaded. The snippet's stub is `{ q: [], render: function () { this.q.push(arguments) } }`.
 */
import { render } from './render.js';

interface HalloweenEvents {
  version: string;
  render(selector: string | Element, options?: unknown): void;
}

type Stub = { q?: ArrayLike<unknown>[] } | HalloweenEvents | undefined;

declare global {
  interface Window {
    HalloweenEvents?: Stub;
  }
}

/**
 * The directory the script was loaded from (its API lives beside it). document.currentScript is
 * only set while the script first runs, so it is read now; the src lookup covers older browsers.
 */
function scriptDirectory(): string | null {
  const script = document.currentScript ?? [...document.querySelectorAll<HTMLScriptElement>('script[src*="widget.v1.js"]')].pop();
  const src = script instanceof HTMLScriptElement ? script.src : '';
  return src ? new URL('.', src).href : null;
}

function install(): void {
  const existing = window.HalloweenEvents;
  // Loaded twice (two snippets on one page): the first copy keeps serving.
  if (existing && 'version' in existing) return;
  const directory = scriptDirectory();
  const api: HalloweenEvents = {
    version: '1',
    render: (selector, options) => render(selector, options, directory),
  };
  window.HalloweenEvents = api;
  const queued = existing && 'q' in existing && Array.isArray(existing.q) ? existing.q : [];
  for (const call of queued) api.render(call[0] as string, call[1]);
}

install();
