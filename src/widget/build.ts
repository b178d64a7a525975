import { buildBrowserBundle, buildWhenRunDirectly, type BrowserBundle, type BuiltBundle } from '../server/browser-bundle.js';
import { projectPath } from '../shared/project-root.js';
import { widgetBundlePath } from './paths.js';

/** Builds widget.v1.js: one minified IIFE with no runtime dependencies, for browsers from 2019 on. */

const widgetBundle: BrowserBundle = {
  name: 'widget.v1.js',
  entryPoint: projectPath('src/widget/client/index.ts'),
  outfile: widgetBundlePath,
  banner: 'widget.v1.js: Halloween events widget',
  maxGzipBytes: 15 * 1024,
};

export type WidgetBuild = BuiltBundle;

export function buildWidget(): Promise<WidgetBuild> {
  return buildBrowserBundle(widgetBundle);
}

buildWhenRunDirectly(import.meta.url, widgetBundle);
