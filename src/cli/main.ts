#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { loadConfig } from '../config-load.js';
import { AppError } from '../errors.js';
import { PROJECT_ROOT } from '../paths.js';
import { createUserCommand, migrateCommand, resetLinkCommand, siteLicenseCommand } from './admin.js';
import { accountCommands } from './commands/account.js';
import { apiCommand } from './commands/api.js';
import { artifactCommands } from './commands/artifacts.js';
import { billingCommands } from './commands/billing.js';
import { chatCommands } from './commands/chat.js';
import { completionCommand } from './commands/completion.js';
import { executionCommands } from './commands/executions.js';
import { fileCommands } from './commands/files.js';
import { runCommands } from './commands/run.js';
import { skillCommands } from './commands/skills.js';
import { computerCommands } from './computer-commands.js';
import { doctorReport, doctorText } from './doctor.js';
import { CliError, EXIT, explain, printLine } from './output.js';
import { baseUrlOf, type GlobalOptions } from './session.js';
import { DEFAULT_BASE_URL } from './settings.js';

// Output piped into something that stopped reading (`| head`) ends the command quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(EXIT.ok);
  throw error;
});

/** The package's own version, read where the code runs from (src in tests, dist when built). */
const { version } = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };

const program = new Command('skillet')
  .description('Run Skillet skills from a terminal, and operate a Skillet server.')
  .version(version, '-V, --version', 'print the version')
  .option('--base-url <url>', 'the Skillet server (default: SKILLET_URL, else the one you logged in to)')
  .showHelpAfterError()
  .exitOverride();
const global = () => program.opts<GlobalOptions>();
// The guide on the server this CLI talks to; --base-url, when given before --help, wins.
const configuredServer = await baseUrlOf({}).catch(() => DEFAULT_BASE_URL);
program.addHelpText(
  'after',
  () =>
    `\nNew here? The guide (getting started, writing a skill, the API reference) is at ${(global().baseUrl ?? configuredServer).replace(/\/+$/, '')}/docs\n`,
);

accountCommands(program, global);
skillCommands(program, global);
runCommands(program, global);
executionCommands(program, global);
artifactCommands(program, global);
fileCommands(program, global);
billingCommands(program, global);
chatCommands(program, global);
apiCommand(program, global);

// Operator commands: they use the server's own settings (environment) and database.
// With REDIS_URL set these are the two kinds of cluster node; NODE_ROLE, when set, wins.
program
  .command('serve')
  .description('start the server; with REDIS_URL, an API node that queues runs (settings: see docs/operations.md)')
  .action(async () => {
    process.env.NODE_ROLE ??= 'api';
    await import('../main.js');
  });
program
  .command('worker')
  .description('start a runner node of a cluster: it executes queued runs (needs DATABASE_URL and REDIS_URL)')
  .action(async () => {
    if (!process.env.REDIS_URL || !process.env.DATABASE_URL) {
      throw new CliError('skillet worker is a node of a cluster: set DATABASE_URL and REDIS_URL', EXIT.usage);
    }
    process.env.NODE_ROLE ??= 'worker';
    await import('../worker.js');
  });
program
  .command('doctor')
  .description('check what skills get on this host: the sandbox, cgroup control and the installed software')
  .option('--json', 'the report as one JSON line')
  .action(async (options: { json?: boolean }) => {
    const report = await doctorReport((await loadConfig(process.env)).executions);
    if (options.json) printLine(report);
    else process.stdout.write(doctorText(report));
    if (!report.ready) process.exitCode = EXIT.failure;
  });
program
  .command('migrate')
  .description('apply database migrations')
  .option('--json', 'the answer is one JSON line either way')
  .action(async () => printLine(await migrateCommand(await loadConfig(process.env))));
computerCommands(program);
const users = program.command('users').description('manage users on the server');
users
  .command('reset-password')
  .description('make a one-time link (valid for an hour) for someone who forgot their password; prints {url, expiresAt}')
  .requiredOption('--email <email>', 'their email')
  .option('--json', 'the answer is one JSON line either way')
  .action(async (options: { email: string }) => printLine(await resetLinkCommand(await loadConfig(process.env), options.email)));
users
  .command('create')
  .description('create a user; prints {userId, workspaceId, authToken}')
  .requiredOption('--email <email>', 'their email')
  .option('--password <password>', 'their password (default: a random one; use the printed token)')
  .option('--admin', 'make them a service admin', false)
  .option('--json', 'the answer is one JSON line either way')
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
  .option('--json', 'the answer is one JSON line either way')
  .action(async (options: { email: string; until: string }) =>
    printLine(await siteLicenseCommand(await loadConfig(process.env), options.email, options.until)),
  );
license
  .command('remove')
  .description("take a user's site license away")
  .requiredOption('--email <email>', 'their email')
  .option('--json', 'the answer is one JSON line either way')
  .action(async (options: { email: string }) =>
    printLine(await siteLicenseCommand(await loadConfig(process.env), options.email, null)),
  );

/**
 * `npm run skillet -- …` runs from the project's root; npm keeps the folder the person typed
 * it in as INIT_CWD. The person's commands take their paths (downloads, --file, --input-file)
 * from that folder. Operator commands keep the project root: their settings' relative paths
 * (the data folder) must not move with the shell.
 */
const OPERATOR_COMMANDS = new Set(['serve', 'worker', 'doctor', 'computer', 'migrate', 'users', 'license']);
program.hook('preAction', (_program, action) => {
  let top = action;
  while (top.parent && top.parent !== program) top = top.parent;
  const personFolder = process.env.INIT_CWD;
  if (personFolder && process.env.npm_lifecycle_event === 'skillet' && !OPERATOR_COMMANDS.has(top.name())) {
    process.chdir(personFolder);
  }
});

// It walks the program when it runs, so its scripts name every command, itself included.
completionCommand(program);

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
