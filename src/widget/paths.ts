import { fileURLToPath } from 'node:url';

/** Where `npm run build:widget` writes the script and the server reads it (dist/ is not committed). */
export const widgetBundlePath = fileURLToPath(new URL('../../dist/widget/widget.v1.js', import.meta.url));
