import { projectPath } from '../shared/project-root.js';

/** Where `npm run build:widget` writes the script and the server reads it (dist/ is not committed). */
export const widgetBundlePath = projectPath('dist/widget/widget.v1.js');
