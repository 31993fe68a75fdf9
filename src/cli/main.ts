#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { AppError } from '../errors.js';
import { createUserCommand, migrateCommand, siteLicenseCommand } from './admin.js';

const USAGE = `Usage: skillet <command>

Commands:
  migrate                                         apply database migrations
  users create --email E [--password P] [--admin] create a user; prints {userId, workspaceId, authToken}
  license grant --email E --until DATE            give a user a site license through DATE (a day, or a timestamp)
  license remove --email E                        take a user's site license away
`;

class UsageError extends Error {}

async function run(argv: string[]): Promise<unknown> {
  const [command, subcommand, ...rest] = argv;
  if (command === 'migrate') return migrateCommand(await loadConfig(process.env));
  if (command === 'users' && subcommand === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: { email: { type: 'string' }, password: { type: 'string' }, admin: { type: 'boolean', default: false } },
      strict: true,
    });
    if (!values.email) throw new UsageError('users create needs --email');
    return createUserCommand(await loadConfig(process.env), {
      email: values.email,
      admin: values.admin ?? false,
      ...(values.password !== undefined ? { password: values.password } : {}),
    });
  }
  if (command === 'license' && (subcommand === 'grant' || subcommand === 'remove')) {
    const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, until: { type: 'string' } }, strict: true });
    if (!values.email) throw new UsageError(`license ${subcommand} needs --email`);
    if (subcommand === 'grant' && !values.until) throw new UsageError('license grant needs --until');
    return siteLicenseCommand(
      await loadConfig(process.env),
      values.email,
      subcommand === 'grant' ? (values.until ?? null) : null,
    );
  }
  throw new UsageError(command ? `Unknown command: ${[command, subcommand].filter(Boolean).join(' ')}` : 'No command given');
}

run(process.argv.slice(2)).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      process.stderr.write(`${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (error instanceof ConfigError) {
      process.stderr.write(`Invalid configuration: ${error.message}\n`);
      process.exitCode = 1;
    } else if (error instanceof AppError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
