import { buildBrowserBundle, buildWhenRunDirectly, type BrowserBundle, type BuiltBundle } from '../../server/browser-bundle.js';
import { projectPath } from '../../shared/project-root.js';
import { dashboardBundlePath } from './paths.js';

/** The dashboard's script: the page's code, uPlot and the graphql-ws client. */
const dashboardBundle: BrowserBundle = {
  name: 'dashboard',
  entryPoint: projectPath('src/analytics/dashboard/client/index.ts'),
  outfile: dashboardBundlePath,
  banner: 'hallowgate dashboard',
  maxGzipBytes: 60 * 1024,
};

export const buildDashboard = (): Promise<BuiltBundle> => buildBrowserBundle(dashboardBundle);

buildWhenRunDirectly(import.meta.url, dashboardBundle);
