import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project folder (the one holding Skillet's package.json), found by walking up from
 * this module, so paths work the same from src (tests) and from dist (npm start).
 */
function findProjectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'skillet') {
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('Cannot find the Skillet project folder');
    dir = parent;
  }
}

export const PROJECT_ROOT = findProjectRoot();
export const BUILTIN_SKILLS_DIR = path.join(PROJECT_ROOT, 'skills');
export const SKILL_HARNESS = path.join(PROJECT_ROOT, 'runtime', 'harness.mjs');
