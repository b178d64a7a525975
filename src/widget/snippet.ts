/** The copy-and-paste snippet, written once for the demo page and the README. */

export interface SnippetOptions {
  scriptUrl: string;
  containerId: string;
  options: Record<string, SnippetValue>;
  /** A CSP nonce for the inline script (the demo page has a strict Content-Security-Policy). */
  nonce?: string;
}

/** An option's value: text, a number, or an object of texts (`window: { from, to }`). */
export type SnippetValue = string | number | Readonly<Record<string, string>>;

/** JSON safe inside an inline <script>: no "</script>", no line separators. */
export function scriptLiteral(value: SnippetValue): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The stub queues render() calls until the async script arrives and replays them; once the script
 * has loaded, `window.HalloweenEvents` is the real object and the stub line leaves it alone.
 */
export function widgetSnippet({ scriptUrl, containerId, options, nonce }: SnippetOptions): string {
  const nonceAttribute = nonce ? ` nonce="${escapeHtml(nonce)}"` : '';
  const optionLines = Object.entries(options).map(([name, value]) => `    ${name}: ${scriptLiteral(value)}`);
  return [
    `<div id="${escapeHtml(containerId)}"></div>`,
    `<script${nonceAttribute}>`,
    '  window.HalloweenEvents = window.HalloweenEvents || { q: [], render: function () { this.q.push(arguments); } };',
    `  HalloweenEvents.render(${scriptLiteral(`#${containerId}`)}, {`,
    optionLines.join(',\n'),
    '  });',
    '</script>',
    `<script async src="${escapeHtml(scriptUrl)}"></script>`,
  ].join('\n');
}
