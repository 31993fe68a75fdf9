import { InvalidInput } from '../errors.js';
import type { SkillManifest } from '../ports/skills.js';
import { chooseToolset } from './computer/toolset.js';

type FilesSaid = Pick<SkillManifest, 'runtime' | 'inputFiles' | 'allowedTools'>;

/**
 * Whether a skill reads the files a run is given (DESIGN §15). Its `input-files:` says so;
 * without it, an agent skill on the computer does (the files are in its uploads folder and
 * its prompt names them), while a script skill, or an agent skill with only the narrow file
 * tools, sees nothing but its input text and does not.
 */
export function takesFiles(skill: FilesSaid): boolean {
  if (skill.inputFiles !== null) return skill.inputFiles;
  return skill.runtime === 'agent' && chooseToolset(skill.allowedTools, false).needsComputer;
}

/**
 * Refuses files for a skill that would not read them, before anything is stored or charged:
 * such a run would work on the input text alone (or the placeholder a client puts there).
 */
export function requireTakesFiles(skill: FilesSaid & Pick<SkillManifest, 'name' | 'slug'>, fileCount: number): void {
  if (fileCount === 0 || takesFiles(skill)) return;
  throw new InvalidInput(
    `${skill.name} (${skill.slug}) does not read files, so it cannot be run with any. ` +
      'Give it what it should work on as its input text instead, or choose a skill that reads files.',
  );
}
