import path from 'node:path';
import { build } from 'vite';
import { PROJECT_ROOT } from '../../src/paths.js';

/** The folder the e2e servers serve the app from; built once per test run (E2E_WEB_DIR moves it). */
export const E2E_WEB_DIR = path.resolve(PROJECT_ROOT, process.env.E2E_WEB_DIR ?? path.join('.test-build', 'web-e2e'));

/** E2E_PREBUILT=1 serves whatever E2E_WEB_DIR already holds (a build of another checkout, say). */
export default async function buildWebApp(): Promise<void> {
  if (process.env.E2E_PREBUILT === '1') return;
  process.env.WEB_BUILD_DIR = path.relative(PROJECT_ROOT, E2E_WEB_DIR);
  await build({ configFile: path.join(PROJECT_ROOT, 'web', 'vite.config.ts'), logLevel: 'warn' });
}
