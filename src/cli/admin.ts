import { licenseEnd, setSiteLicense } from '../billing/site-license.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config.js';
import { type AppContext, createAppContext } from '../context.js';
import { migrateToLatest } from '../db/migrate.js';
import { openConfiguredDatabase } from '../db/open-configured.js';
import { issueAuthToken } from '../identity/auth-tokens.js';
import { createUser } from '../identity/users.js';
import { MemoryRateLimitStore } from '../rate-limit/store.js';
import { randomBase64Url } from '../secrets.js';

/** Runs an operator command against the configured database, migrated first. */
async function withContext<T>(config: Config, work: (ctx: AppContext) => Promise<T>): Promise<T> {
  const database = openConfiguredDatabase(config);
  try {
    await migrateToLatest(database);
    return await work(createAppContext({ config, database, clock: systemClock, rateLimits: new MemoryRateLimitStore() }));
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

export interface CreateUserOptions {
  email: string;
  /** Absent: a random password nobody knows; the printed token is the way in. */
  password?: string;
  admin: boolean;
}

export async function createUserCommand(
  config: Config,
  options: CreateUserOptions,
): Promise<{ userId: string; workspaceId: string; authToken: string }> {
  return withContext(config, async (ctx) => {
    const user = await createUser(ctx, {
      email: options.email,
      password: options.password ?? randomBase64Url(24),
      isAdmin: options.admin,
    });
    return { userId: user.id, workspaceId: user.personal_workspace_id, authToken: await issueAuthToken(ctx, user) };
  });
}

/** `license grant --email E --until DATE` and `license remove --email E`. */
export async function siteLicenseCommand(config: Config, email: string, until: string | null) {
  return withContext(config, (ctx) => setSiteLicense(ctx, email, until === null ? null : licenseEnd(until)));
}
