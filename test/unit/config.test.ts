import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { loadConfig } from '../../src/config-load.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-config-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('loadConfig', () => {
  it('serves the embedded default on 127.0.0.1:8080 with the shipped limits', async () => {
    const config = await loadConfig({ DATA_DIR: dir });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      publicUrl: 'http://127.0.0.1:8080',
      dataDir: dir,
      databaseUrl: undefined,
      rateLimits: {
        restPerMinute: 100,
        activationCreateIntervalMs: 1000,
        pollBurst: 5,
        pollPerSecond: 1,
        pollIntervalSeconds: 2,
      },
      heartbeat: { activeSeconds: 300, idleSeconds: 604_800 },
      authTokenTtlDays: 30,
    });
  });

  it('gives a run’s computer 4 GiB and 2 GiB of writable space, scripts 256 MiB; the space must be below the memory', async () => {
    const config = await loadConfig({ DATA_DIR: dir });
    expect(config.executions).toMatchObject({ memoryMb: 256, computerMemoryMb: 4096, workspaceLimitBytes: 2 * 1024 ** 3 });
    const small = await loadConfig({
      DATA_DIR: dir,
      COMPUTER_MEMORY_MB: '128',
      SKILL_WORKSPACE_LIMIT_BYTES: String(16 * 1024 ** 2),
    });
    expect(small.executions).toMatchObject({ computerMemoryMb: 128, workspaceLimitBytes: 16 * 1024 ** 2 });
    const refused = loadConfig({ DATA_DIR: dir, COMPUTER_MEMORY_MB: '2048' });
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(
      /SKILL_WORKSPACE_LIMIT_BYTES \(2147483648\) must be below COMPUTER_MEMORY_MB \(2048 MiB\)/,
    );
  });

  it('generates a signing secret once and keeps it in the data folder', async () => {
    const first = await loadConfig({ DATA_DIR: dir });
    const second = await loadConfig({ DATA_DIR: dir });
    expect(first.signingSecret.length).toBeGreaterThanOrEqual(32);
    expect(second.signingSecret).toBe(first.signingSecret);
    expect((await readFile(path.join(dir, 'signing-secret'), 'utf8')).trim()).toBe(first.signingSecret);
    const configured = await loadConfig({ DATA_DIR: dir, SIGNING_SECRET: 'x'.repeat(40) });
    expect(configured.signingSecret).toBe('x'.repeat(40));
  });

  it('names the node once and keeps the name in the data folder, unless NODE_ID names it', async () => {
    const first = await loadConfig({ DATA_DIR: dir });
    expect((await loadConfig({ DATA_DIR: dir })).nodeId).toBe(first.nodeId);
    expect((await readFile(path.join(dir, 'node-id'), 'utf8')).trim()).toBe(first.nodeId);
    expect((await loadConfig({ DATA_DIR: dir, NODE_ID: 'api-2' })).nodeId).toBe('api-2');
    for (const bad of ['a b', 'x'.repeat(65), '../etc']) {
      await expect(loadConfig({ DATA_DIR: dir, NODE_ID: bad })).rejects.toThrow(ConfigError);
    }
    await expect(loadConfig({ DATA_DIR: dir, REDIS_URL: 'http://127.0.0.1:6379' })).rejects.toThrow(ConfigError);
  });

  it.each([
    [{ PORT: 'http' }, 'PORT must be a whole number from 0 to 65535 (got "http")'],
    [{ PORT: '70000' }, 'PORT must be a whole number'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be a postgres:// URL'],
    [{ PUBLIC_URL: 'not a url' }, 'PUBLIC_URL must be an absolute URL'],
    [{ PUBLIC_URL: 'ftp://example.test' }, 'PUBLIC_URL must be an http or https URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ SKILLET_ENV: 'prod' }, 'SKILLET_ENV must be one of development, production (got "prod")'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY must be true or false'],
    [{ SIGNING_SECRET: 'short' }, 'SIGNING_SECRET must be at least 32 characters'],
    [{ RATE_LIMIT_REST_PER_MINUTE: '0' }, 'RATE_LIMIT_REST_PER_MINUTE must be a whole number'],
  ])('names the bad variable: %j', async (env, message) => {
    const attempt = loadConfig({ DATA_DIR: dir, ...env });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('derives the public URL from host and port, and trims a trailing slash', async () => {
    expect((await loadConfig({ DATA_DIR: dir, HOST: '0.0.0.0', PORT: '9000' })).publicUrl).toBe('http://127.0.0.1:9000');
    expect((await loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://skillet.example.test/' })).publicUrl).toBe(
      'https://skillet.example.test',
    );
  });

  it('reads the model settings: house keys, base URLs, caps and the price table over its defaults', async () => {
    const config = await loadConfig({
      DATA_DIR: dir,
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1/',
      OPENAI_MODEL: 'llama3.1',
      MODEL_PRICES: '{"llama3.1": {"input": 0, "output": 0}}',
      AGENT_MAX_TURNS: '5',
    });
    expect(config.agent).toMatchObject({
      anthropic: { apiKey: undefined, baseUrl: 'https://api.anthropic.com', model: 'claude-sonnet-4-6' },
      openai: { apiKey: undefined, baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1' },
      maxRetries: 2,
      maxTurns: 5,
      thinkingBudget: 0,
    });
    expect(config.agent.prices['llama3.1']).toEqual({ input: 0, output: 0 });
    expect(config.agent.prices['claude-sonnet-4-6']).toEqual({ input: 300, output: 1500 });
  });

  it('sends mail only with an smtp:// or smtps:// URL, from an address', async () => {
    expect((await loadConfig({ DATA_DIR: dir })).mail).toBeUndefined();
    expect((await loadConfig({ DATA_DIR: dir, SMTP_URL: 'smtps://user:pass@mail.example:465' })).mail).toEqual({
      smtpUrl: 'smtps://user:pass@mail.example:465',
      from: 'Skillet <skillet@localhost>',
    });
    await expect(loadConfig({ DATA_DIR: dir, SMTP_URL: 'http://mail.example' })).rejects.toThrow(/SMTP_URL must be/);
    await expect(loadConfig({ DATA_DIR: dir, SMTP_URL: 'smtp://mail.example', MAIL_FROM: 'nobody' })).rejects.toThrow(
      /MAIL_FROM must be an email address/,
    );
  });

  it('refuses a price table that is not JSON, a bad base URL and a thinking budget above the output cap', async () => {
    await expect(loadConfig({ DATA_DIR: dir, MODEL_PRICES: 'cheap' })).rejects.toThrow(ConfigError);
    await expect(loadConfig({ DATA_DIR: dir, ANTHROPIC_BASE_URL: 'ftp://x' })).rejects.toThrow(/ANTHROPIC_BASE_URL/);
    await expect(loadConfig({ DATA_DIR: dir, AGENT_MAX_OUTPUT_TOKENS: '1000', AGENT_THINKING_BUDGET: '1000' })).rejects.toThrow(
      /AGENT_THINKING_BUDGET/,
    );
  });
});
