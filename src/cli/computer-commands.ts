import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config-load.js';
import { findComputerImage } from '../sandbox/computer/computer-image.js';
import { buildComputerImage } from '../sandbox/computer/computer-image-build.js';
import { readImageRecipe } from '../sandbox/computer/computer-image-recipe.js';
import { printLine } from './output.js';

interface BuildOptions {
  dir?: string;
  mirror?: string;
  pip: boolean;
  wheels?: string;
  requirements?: string;
  ifNeeded?: boolean;
  json?: boolean;
}

/** `skillet computer build`: the image agent runs' computers run on (DESIGN §14). */
export function computerCommands(program: Command): void {
  const computer = program
    .command('computer')
    .description('the computer agent skills run on: a shell, Python, Node and office tools');
  computer
    .command('build')
    .description(
      'build the computer image from computer/image/recipe.json and computer/software.json (needs root and mmdebstrap; ' +
        'a few minutes and about 2.5 GB); servers started afterwards use it',
    )
    .option('--dir <folder>', 'where images are kept (default: COMPUTER_IMAGE_DIR, else DATA_DIR/computer-image)')
    .option('--mirror <url>', "a Debian mirror (default: the first one this host's apt uses)")
    .option('--no-pip', 'leave out the Python packages that have no Debian package')
    .option('--wheels <folder>', 'install those from this folder of wheels only, without a package index')
    .option('--requirements <file>', 'pip requirements instead of computer/image/requirements.txt')
    .option('--if-needed', 'build only when the image in use was built from another recipe (or there is none)')
    .option('--json', 'the answer is one JSON line')
    .action(async (options: BuildOptions) => {
      const config = await loadConfig(process.env);
      const recipe = readImageRecipe({ pipRequirementsFile: options.requirements && path.resolve(options.requirements) });
      const storeDir = options.dir ? path.resolve(options.dir) : config.executions.computerImage.dir;
      const found = findComputerImage(storeDir);
      if (options.ifNeeded && 'image' in found && found.image.version === recipe.version) {
        if (options.json) printLine({ version: recipe.version, folder: path.dirname(found.image.root), built: false });
        else
          process.stdout.write(`The computer image ${recipe.version} is built already, at ${path.dirname(found.image.root)}.\n`);
        return;
      }
      const pip = !options.pip
        ? { from: 'skip' as const }
        : options.wheels
          ? { from: 'wheels' as const, dir: path.resolve(options.wheels) }
          : { from: 'index' as const };
      const built = await buildComputerImage({
        recipe,
        storeDir,
        mirror: options.mirror,
        pip,
        say: options.json ? () => undefined : (line) => process.stderr.write(`${line}\n`),
      });
      if (options.json) {
        printLine({ ...built, built: true });
        return;
      }
      const pipNote = built.pipSkipped ? ` The pip layer was left out: ${built.pipSkipped}.` : '';
      process.stdout.write(
        `Built computer image ${built.version} in ${built.seconds} s at ${built.folder}.${pipNote}\n` +
          'Restart the server (and every worker) to run agent skills on it; skillet doctor shows what it holds.\n',
      );
    });
}
