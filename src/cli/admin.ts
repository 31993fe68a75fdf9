import { licenseEnd, setSiteLicense } from '../billing/site-license.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import { migrateToLatest } from '../db/migrate.js';
import { openConfiguredDatabase } from '../db/open-configured.js';
import { makeResetLink } from '../identity/account.js';
import { issueAuthToken } from '../identity/auth-tokens.js';
import { createUser, normalizeEmail } from '../identity/users.js';
import { randomBase64Url } from '../secrets.js';

/** What the operator commands use: the configured database, migrated, a clock and the settings; no server parts. */
type OperatorDeps = Pick<AppContext, 'db' | 'clock' | 'config'>;

/** Runs an operator command against the configured database, migrated first. */
async function withDatabase<T>(config: Config, work: (deps: OperatorDeps) => Promise<T>): Promise<T> {
  const database = openConfiguredDatabase(config);
  try {
    await migrateToLatest(database);
    return await work({ db: database.db, clock: systemClock, config });
  } finally {
    await database.close();
  }
}

export async function migrateCommand(config: Config): Promise<{ applied: string[] }> {
  const database = openConfiguredDatabase(config);
  try {
    return { applied: await migrateToLatest(database) };
  } finally {
    await database.close();
  }
}

interface CreateUserOptions {
  email: string;
  /** Absent: a random password nobody knows; the printed token is the way in. */
  password?: string;
  admin: boolean;
}

export async function createUserCommand(
  config: Config,
  options: CreateUserOptions,
): Promise<{ userId: string; workspaceId: string; authToken: string }> {
  return withDatabase(config, async (deps) => {
    const user = await createUser(deps, {
      email: options.email,
      password: options.password ?? randomBase64Url(24),
      isAdmin: options.admin,
    });
    return { userId: user.id, workspaceId: user.personal_workspace_id, authToken: await issueAuthToken(deps, user) };
  });
}

/** `license grant --email E --until DATE` and `license remove --email E`. */
export async function siteLicenseCommand(config: Config, email: string, until: string | null) {
  return withDatabase(config, (deps) => {
    const untilIso = until === null ? null : licenseEnd(until);
    return setSiteLicense(deps, { email, normalizedEmail: normalizeEmail(email) }, untilIso);
  });
}

/** `users reset-password --email E`: a one-time link for the person to choose a new password. */
export function resetLinkCommand(config: Config, email: string): Promise<{ url: string; expiresAt: string }> {
  return withDatabase(config, (deps) => makeResetLink(deps, email));
}
