import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../paths.js';
import { readSoftwareList } from './computer-software.js';

/** The folder of the image's recipe: recipe.json and the pip requirements it names. */
export const RECIPE_DIR = path.join(PROJECT_ROOT, 'computer', 'image');

interface RecipeFile {
  revision: number;
  suite: string;
  variant: string;
  packages: string[];
  pipRequirements: string;
}

/** What one image is built from: the software list's packages and the recipe's own. */
export interface ImageRecipe {
  /** Names the image: the suite, the revision and a digest of everything below. */
  version: string;
  suite: string;
  variant: string;
  /** Debian packages, the software list's and the system's around them. */
  debianPackages: string[];
  /** npm packages installed globally (found by require() and import from any folder). */
  npmPackages: string[];
  /** pip requirement lines (comments and blank lines left out). */
  pipRequirements: string[];
}

const words = (text: string | undefined) => (text ?? '').split(/\s+/).filter(Boolean);

/**
 * The recipe as the repository has it, or with other pip requirements (an operator's, or a
 * test's own wheel). The version changes with anything installed, so every worker built from
 * the same inputs names the same image.
 */
export function readImageRecipe(options: { pipRequirementsFile?: string | undefined } = {}): ImageRecipe {
  const file = JSON.parse(readFileSync(path.join(RECIPE_DIR, 'recipe.json'), 'utf8')) as RecipeFile;
  const software = readSoftwareList();
  const requirementsFile = options.pipRequirementsFile ?? path.join(RECIPE_DIR, file.pipRequirements);
  const pipRequirements = readFileSync(requirementsFile, 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);
  const debianPackages = [...new Set([...software.flatMap((item) => words(item.package)), ...file.packages])];
  const npmPackages = [...new Set(software.flatMap((item) => words(item.npm)))];
  // What ends up in the image, not how the lists word it: a reworded entry names the same version.
  const digest = createHash('sha256')
    .update(JSON.stringify([file.suite, file.variant, file.revision, debianPackages, npmPackages, pipRequirements]))
    .digest('hex')
    .slice(0, 10);
  return {
    version: `${file.suite}-r${file.revision}-${digest}`,
    suite: file.suite,
    variant: file.variant,
    debianPackages,
    npmPackages,
    pipRequirements,
  };
}
