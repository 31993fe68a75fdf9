#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { AppError } from '../errors.js';
import { createUserCommand, migrateCommand, siteLicenseCommand } from './admin.js';
import { accountCommands } from './commands/account.js';
import { artifactCommands } from './commands/artifacts.js';
import { billingCommands } from './commands/billing.js';
import { runCommands } from './commands/run.js';
import { EXIT, explain, printLine } from './output.js';
import type { GlobalOptions } from './session.js';

// Output piped into something that stopped reading (`| head`) ends the command quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(EXIT.ok);
  throw error;
});

const program = new Command('skillet')
  .description('Run Skillet skills from a terminal, and operate a Skillet server.')
  .option('--base-url <url>', 'the Skillet server (default: SKILLET_URL, else the one you logged in to)')
  .showHelpAfterError()
  .exitOverride();
const global = () => program.opts<GlobalOptions>();

accountCommands(program, global);
runCommands(program, global);
artifactCommands(program, global);
billingCommands(program, global);

// Operator commands: they use the server's own settings (environment) and database.
program
  .command('serve')
  .description('start the server (settings from the environment; see docs/operations.md)')
  .action(async () => {
    await import('../main.js');
  });
program
  .command('migrate')
  .description('apply database migrations')
  .action(async () => printLine(await migrateCommand(await loadConfig(process.env))));
program
  .command('users')
  .description('manage users on the server')
  .command('create')
  .description('create a user; prints {userId, workspaceId, authToken}')
  .requiredOption('--email <email>', 'their email')
  .option('--password <password>', 'their password (default: a random one; use the printed token)')
  .option('--admin', 'make them a service admin', false)
  .action(async (options: { email: string; password?: string; admin: boolean }) =>
    printLine(
      await createUserCommand(await loadConfig(process.env), {
        email: options.email,
        admin: options.admin,
        ...(options.password !== undefined ? { password: options.password } : {}),
      }),
    ),
  );
const license = program.command('license').description("manage users' site licenses");
license
  .command('grant')
  .description('give a user a site license through a date (a day, or a timestamp)')
  .requiredOption('--email <email>', 'their email')
  .requiredOption('--until <date>', 'e.g. 2027-12-31')
  .action(async (options: { email: string; until: string }) =>
    printLine(await siteLicenseCommand(await loadConfig(process.env), options.email, options.until)),
  );
license
  .command('remove')
  .description("take a user's site license away")
  .requiredOption('--email <email>', 'their email')
  .action(async (options: { email: string }) =>
    printLine(await siteLicenseCommand(await loadConfig(process.env), options.email, null)),
  );

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version end with code 0; a usage mistake has been explained already.
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else if (error instanceof ConfigError) {
    process.stderr.write(`Invalid configuration: ${error.message}\n`);
    process.exitCode = EXIT.failure;
  } else if (error instanceof AppError) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = EXIT.failure;
  } else {
    process.exitCode = explain(error);
  }
}
