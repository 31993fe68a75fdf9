import type { Kysely } from 'kysely';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Dialect } from './db/database.js';
import type { Tables } from './db/tables.js';
import type { CredentialCache } from './identity/credential-cache.js';
import type { RateLimitStore } from './rate-limit/store.js';

/** What every domain function is handed: no globals, so tests swap any part. */
export interface AppContext {
  db: Kysely<Tables>;
  dialect: Dialect;
  clock: Clock;
  config: Config;
  rateLimits: RateLimitStore;
  credentials: CredentialCache;
  /** Purpose-bound keys derived from the signing secret. */
  keys: { sealing: Buffer; signing: Buffer };
}
