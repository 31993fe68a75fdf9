import {
  type Config,
  ConfigError,
  type Env,
  type MailSettings,
  NODE_ROLES,
  type NodeRole,
  PACKAGE_REGISTRY_HOSTS,
  type SandboxSetting,
} from './config.js';

/*
 * Reading the environment: whole numbers, yes or no, URLs, and the settings that are one
 * variable each. Each refuses a bad value with a ConfigError that names the variable.
 */

export function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

export function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = read(env, name) ?? fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL (got "${raw}")`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http or https URL (got "${raw}")`);
  }
  return raw.replace(/\/+$/, '');
}

export function wsUrl(env: Env, name: string, fallback: string): string {
  const raw = read(env, name) ?? fallback;
  if (!/^wss?:\/\/[^\s]+$/.test(raw)) throw new ConfigError(`${name} must be a ws:// or wss:// URL (got "${raw}")`);
  return raw.replace(/\/+$/, '');
}

const SANDBOX_SETTINGS = ['auto', 'bwrap', 'none'] as const;

export function sandboxSetting(env: Env): SandboxSetting {
  const raw = read(env, 'SKILL_SANDBOX') ?? 'auto';
  const setting = SANDBOX_SETTINGS.find((candidate) => candidate === raw);
  if (!setting) throw new ConfigError(`SKILL_SANDBOX must be one of ${SANDBOX_SETTINGS.join(', ')} (got "${raw}")`);
  return setting;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function logLevel(env: Env): Config['logLevel'] {
  const raw = read(env, 'LOG_LEVEL') ?? 'info';
  const level = LOG_LEVELS.find((candidate) => candidate === raw);
  if (!level) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${raw}")`);
  return level;
}

export function accessLog(env: Env): Config['accessLog'] {
  const raw = read(env, 'ACCESS_LOG') ?? 'errors';
  if (raw !== 'all' && raw !== 'errors' && raw !== 'off')
    throw new ConfigError(`ACCESS_LOG must be all, errors or off (got "${raw}")`);
  return raw;
}

const ENVIRONMENTS = ['development', 'production'] as const;

export function environment(env: Env): Config['environment'] {
  const raw = read(env, 'SKILLET_ENV') ?? 'development';
  const found = ENVIRONMENTS.find((candidate) => candidate === raw);
  if (!found) throw new ConfigError(`SKILLET_ENV must be one of ${ENVIRONMENTS.join(', ')} (got "${raw}")`);
  return found;
}

export function databaseUrl(env: Env): string | undefined {
  const raw = read(env, 'DATABASE_URL');
  if (raw === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (leave it unset for SQLite)');
  }
  return raw;
}

export function appScheme(env: Env): string {
  const raw = read(env, 'APP_SCHEME') ?? 'skillet';
  if (!/^[a-z][a-z0-9+.-]{0,31}$/.test(raw))
    throw new ConfigError(`APP_SCHEME must be a URL scheme such as skillet (got "${raw}")`);
  return raw;
}

export function nodeRole(env: Env): NodeRole {
  const raw = read(env, 'NODE_ROLE') ?? 'all';
  const found = NODE_ROLES.find((candidate) => candidate === raw);
  if (!found) throw new ConfigError(`NODE_ROLE must be one of ${NODE_ROLES.join(', ')} (got "${raw}")`);
  return found;
}

export function redisPrefix(env: Env): string {
  const value = read(env, 'REDIS_PREFIX') ?? 'skillet:';
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(value)) {
    throw new ConfigError('REDIS_PREFIX must be 1-64 letters, digits, dots, dashes, underscores or colons');
  }
  return value;
}

export function redisUrl(env: Env): string | undefined {
  const value = read(env, 'REDIS_URL');
  if (value === undefined) return undefined;
  if (!/^rediss?:\/\//.test(value)) throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  return value;
}

export function mailSettings(env: Env): MailSettings | undefined {
  const smtpUrl = read(env, 'SMTP_URL');
  if (smtpUrl === undefined) return undefined;
  if (!/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL');
  const from = read(env, 'MAIL_FROM') ?? 'Skillet <skillet@localhost>';
  if (!/@/.test(from)) throw new ConfigError(`MAIL_FROM must be an email address (got "${from}")`);
  return { smtpUrl, from };
}

const HOST_NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** SKILL_ALLOWED_HOSTS, lower-cased, plus the registries when they are allowed. */
export function allowedHosts(env: Env): string[] {
  const hosts = (read(env, 'SKILL_ALLOWED_HOSTS') ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase().replace(/\.$/, ''))
    .filter((entry) => entry !== '');
  const bad = hosts.find((entry) => entry.length > 253 || !HOST_NAME.test(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      `SKILL_ALLOWED_HOSTS must be host names separated by commas, such as api.example.com or *.example.com, without a scheme, port or path (got "${bad}")`,
    );
  }
  if (hosts.length > 1000) throw new ConfigError('SKILL_ALLOWED_HOSTS may name at most 1000 hosts');
  const registries = boolean(env, 'SKILL_ALLOW_PACKAGE_REGISTRIES', false) ? PACKAGE_REGISTRY_HOSTS : [];
  return [...new Set([...hosts, ...registries])];
}
