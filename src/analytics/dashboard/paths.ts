import { fileURLToPath } from 'node:url';

/** Where `npm run build:dashboard` writes the dashboard script and the server reads it (dist/ is not committed). */
export const dashboardBundlePath = fileURLToPath(new URL('../../../dist/dashboard/dashboard.js', import.meta.url));
