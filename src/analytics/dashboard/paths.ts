import { projectPath } from '../../shared/project-root.js';

/** Where `npm run build:dashboard` writes the dashboard script and the server reads it (dist/ is not committed). */
export const dashboardBundlePath = projectPath('dist/dashboard/dashboard.js');
