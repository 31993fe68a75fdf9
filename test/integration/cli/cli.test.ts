import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { sha256Hex } from '../../../src/secrets.js';
import { buildProject } from '../../helpers/build.js';
import { createSchema, engineUnderTest, postgresUrl } from '../../helpers/database.js';

const run = promisify(execFile);
let dir: string;
let build: Awaited<ReturnType<typeof buildProject>>;
let cli: string;
let env: NodeJS.ProcessEnv;
let database: Database;
let dropSchema: () => Promise<void> = async () => undefined;
let dropDecoy: () => Promise<void> = async () => undefined;

/** The CLI runs as built JavaScript, the way `npm run skillet` runs it. */
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-cli-'));
  build = await buildProject();
  cli = path.join(build.dir, 'src/cli/main.js');
  env = { ...process.env, DATA_DIR: dir, PASSWORD_HASH_LOG_N: '10', DATABASE_URL: '' };
  if (engineUnderTest() === 'sqlite') {
    database = openDatabase({ kind: 'sqlite', file: path.join(dir, 'skillet.db') });
    return;
  }
  // Another schema on the same server already has Kysely's bookkeeping tables: they are not ours.
  const decoy = await createSchema('decoy');
  const decoyDatabase = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: decoy.name });
  await migrateToLatest(decoyDatabase);
  await decoyDatabase.close();
  const schema = await createSchema('cli');
  dropDecoy = decoy.drop;
  env.DATABASE_URL = `${postgresUrl()}?options=${encodeURIComponent(`-c search_path=${schema.name}`)}`;
  database = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: schema.name });
  dropSchema = schema.drop;
}, 60_000);

afterAll(async () => {
  await database.close();
  await dropSchema();
  await dropDecoy();
  await rm(dir, { recursive: true, force: true });
  await build.remove();
});

const skillet = (...args: string[]) => run(process.execPath, [cli, ...args], { env });

async function failure(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await skillet(...args);
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    return { code, stderr };
  }
  throw new Error('expected the command to fail');
}

describe('skillet migrate', () => {
  it('applies the migrations once, then has nothing to do', async () => {
    const first = await skillet('migrate');
    expect(JSON.parse(first.stdout)).toEqual({
      applied: [
        '0001-identity',
        '0002-executions',
        '0003-event-frames',
        '0004-artifacts',
        '0005-billing',
        '0006-model-charges',
        '0007-oauth',
        '0008-agent-connect',
        '0009-run-owner',
        '0010-cluster',
        '0011-agent-threads',
        '0012-outbound-webhooks',
        '0013-credit-holds',
        '0014-approval-askers',
        '0015-input-files',
        '0016-password-resets',
        '0017-subscription-cancellations',
        '0018-uploaded-skills',
        '0019-run-journal',
        '0020-run-owner-attempt',
        '0021-spent-net-of-refunds',
        '0022-workspace-invitations',
      ],
    });
    expect(JSON.parse((await skillet('migrate')).stdout)).toEqual({ applied: [] });
  });
});

describe('skillet users create', () => {
  it('prints one JSON line {userId, workspaceId, authToken}, and the token is live', async () => {
    const email = `cli-${randomBytes(4).toString('hex')}@example.test`;
    const { stdout } = await skillet('users', 'create', '--email', email, '--password', 'cli password', '--admin');
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0] ?? '');
    expect(created).toEqual({
      userId: expect.any(String),
      workspaceId: expect.any(String),
      authToken: expect.stringMatching(/^sklt_sess_/),
    });

    const user = await database.db.selectFrom('users').selectAll().where('id', '=', created.userId).executeTakeFirstOrThrow();
    expect(user).toMatchObject({ email, is_admin: 1, personal_workspace_id: created.workspaceId });
    const token = await database.db
      .selectFrom('auth_tokens')
      .selectAll()
      .where('token_hash', '=', sha256Hex(created.authToken))
      .executeTakeFirst();
    expect(token?.user_id).toBe(created.userId);
  });

  it('fails clearly on a duplicate email, bad usage and bad settings', async () => {
    const email = `dup-${randomBytes(4).toString('hex')}@example.test`;
    await skillet('users', 'create', '--email', email);
    expect(await failure('users', 'create', '--email', email)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('already exists'),
    });
    expect(await failure('users', 'create')).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: skillet') });
    expect(await failure('frobnicate')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("unknown command 'frobnicate'"),
    });
    env.PORT = 'eighty';
    expect(await failure('migrate')).toMatchObject({ code: 1, stderr: expect.stringContaining('PORT must be a whole number') });
    delete env.PORT;
  });
});

describe('skillet users reset-password', () => {
  it('prints a one-time link for a person who forgot their password, keeping only its hash', async () => {
    const email = `forgot-${randomBytes(4).toString('hex')}@example.test`;
    const { userId } = JSON.parse((await skillet('users', 'create', '--email', email)).stdout);
    const { stdout } = await skillet('users', 'reset-password', '--email', email);
    const made = JSON.parse(stdout) as { url: string; expiresAt: string };
    expect(made.url).toMatch(/\/app\/reset-password#token=sklt_reset_[0-9A-Za-z]{40}$/);
    const token = made.url.slice(made.url.indexOf('#token=') + 7);
    const row = await database.db
      .selectFrom('password_resets')
      .selectAll()
      .where('token_hash', '=', sha256Hex(token))
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ user_id: userId, used_at: null, expires_at: made.expiresAt });
    expect(await failure('users', 'reset-password', '--email', 'nobody-at-all@example.test')).toMatchObject({
      code: 1,
      stderr: 'There is no account with the email nobody-at-all@example.test.\n',
    });
  });
});

describe('skillet license', () => {
  it('grants a site license through a day, which the mode follows, and removes it', async () => {
    const email = `licensed-${randomBytes(4).toString('hex')}@example.test`;
    const { userId } = JSON.parse((await skillet('users', 'create', '--email', email)).stdout);
    const granted = JSON.parse(
      (await skillet('license', 'grant', '--email', email.toUpperCase(), '--until', '2099-12-31')).stdout,
    );
    expect(granted).toEqual({ userId, email, siteLicenseUntil: '2099-12-31T23:59:59.999Z' });
    const row = await database.db
      .selectFrom('users')
      .select('site_license_until')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(row.site_license_until).toBe('2099-12-31T23:59:59.999Z');
    expect(JSON.parse((await skillet('license', 'remove', '--email', email)).stdout)).toMatchObject({ siteLicenseUntil: null });

    expect(await failure('license', 'grant', '--email', email)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--until'),
    });
    expect(await failure('license', 'grant', '--email', email, '--until', 'someday')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--until must be a date'),
    });
    expect(await failure('license', 'grant', '--email', 'nobody@example.test', '--until', '2099-01-01')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('No user'),
    });
  });
});
