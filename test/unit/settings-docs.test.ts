import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { loadConfig } from '../../src/config-load.js';
import { PROJECT_ROOT } from '../../src/paths.js';

/**
 * Drift guard: the settings table of docs/operations.md is what operators go by, and
 * src/config.ts is what the server reads. loadConfig is run over an env that records every
 * name asked for, in a few settings that take its conditional paths (Stripe, S3), and the
 * names are compared with the table's rows, both ways.
 */

const OPERATIONS_DOC = path.join(PROJECT_ROOT, 'docs', 'operations.md');
/** Where the settings are read: the environment's readers, the settings made of several variables, and the loader. */
const CONFIG_SOURCES = ['config-env.ts', 'config-sections.ts', 'config-load.ts'].map((file) =>
  path.join(PROJECT_ROOT, 'src', file),
);

/** Read by config, yet rightly not a row of their own. */
const READ_BUT_NOT_A_ROW: Record<string, string> = {
  AWS_REGION: "the AWS SDK's own variable, named in the table as BLOB_S3_REGION's fallback",
};

/** Rows config does not read, with where they are read instead. None today; keep it short. */
const ROWS_NOT_READ_BY_CONFIG: Record<string, string> = {};

/**
 * The table says which `BLOB_S3_X` may also be given as `S3_X` (DESIGN §12's first names):
 * "every `BLOB_S3_X` below [but `BLOB_S3_A`, `BLOB_S3_B`] may also be given as `S3_X`".
 */
const S3_ALIAS_NOTE = /every `BLOB_S3_X` below (?:but (.+?) )?may also be given as `S3_X`/;

/** Settings that between them take every path of loadConfig that asks for a variable. */
const SCENARIOS: Record<string, Env> = {
  defaults: {},
  'Stripe payments': { STRIPE_SECRET_KEY: 'sk_test_settings_docs', STRIPE_WEBHOOK_SECRET: 'whsec_settings_docs' },
  'an S3 bucket': { BLOB_S3_BUCKET: 'skillet-settings-docs' },
  mail: { SMTP_URL: 'smtp://127.0.0.1:2525' },
};

/** An env that notes the name of every variable looked up in it. */
function recordingEnv(values: Env, names: Set<string>): Env {
  return new Proxy(values, {
    get(target, key) {
      if (typeof key !== 'string') return undefined;
      names.add(key);
      return target[key];
    },
  });
}

interface SettingsTable {
  /** Every variable named in a row's first cell (a row may name two that go together). */
  variables: Set<string>;
  /** The `S3_X` names the table says stand for its `BLOB_S3_X` rows. */
  s3Aliases: Set<string>;
  /** Rows whose first cell names no variable: they would escape the comparison. */
  rowsWithoutVariable: string[];
}

function settingsTable(markdown: string): SettingsTable {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Settings\n'));
  if (!section) throw new Error(`No "## Settings" section in ${OPERATIONS_DOC}`);
  const lines = section.split('\n');
  const header = lines.findIndex((line) => /^\|\s*variable\s*\|\s*default\s*\|\s*meaning\s*\|$/.test(line.trim()));
  if (header < 0) throw new Error('No "| variable | default | meaning |" table under "## Settings"');
  const rows: string[] = [];
  // Past the header and its |---| line, the table runs until the first line that is not a row.
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  const variables = new Set<string>();
  const rowsWithoutVariable: string[] = [];
  for (const row of rows) {
    const firstCell = row.split('|')[1] ?? '';
    const names = [...firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1] ?? '');
    if (names.length === 0) rowsWithoutVariable.push(row);
    for (const name of names) variables.add(name);
  }
  const note = section.match(S3_ALIAS_NOTE);
  if (!note) throw new Error('The settings table no longer says which BLOB_S3_X may be given as S3_X');
  const withoutAlias = new Set([...(note[1] ?? '').matchAll(/`([A-Z0-9_]+)`/g)].map((match) => match[1] ?? ''));
  const s3Aliases = new Set(
    [...variables]
      .filter((name) => name.startsWith('BLOB_S3_') && !withoutAlias.has(name))
      .map((name) => name.slice('BLOB_'.length)),
  );
  return { variables, s3Aliases, rowsWithoutVariable };
}

/** The names config.ts passes straight to its readers, found in its text: the scenarios must reach them all. */
function namesInConfigSource(source: string): string[] {
  const direct = [...source.matchAll(/\b(?:read|integer|boolean|httpUrl|wsUrl)\(env, '([A-Z][A-Z0-9_]*)'/g)];
  const s3 = [...source.matchAll(/\bs3Setting\(env, '([A-Z][A-Z0-9_]*)'\)/g)];
  return [...new Set([...direct.map((match) => match[1] ?? ''), ...s3.map((match) => `BLOB_S3_${match[1] ?? ''}`)])];
}

describe('the settings table of docs/operations.md against src/config.ts', () => {
  let dataDir: string;
  const readByConfig = new Set<string>();
  let table: SettingsTable;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'skillet-settings-docs-'));
    for (const settings of Object.values(SCENARIOS)) {
      await loadConfig(recordingEnv({ DATA_DIR: dataDir, ...settings }, readByConfig));
    }
    table = settingsTable(await readFile(OPERATIONS_DOC, 'utf8'));
  });

  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('finds a variable in every row of the table', () => {
    expect(table.rowsWithoutVariable).toEqual([]);
    expect(table.variables.size).toBeGreaterThan(50);
  });

  it('has the settings run through every variable the config modules name', async () => {
    const sources = await Promise.all(CONFIG_SOURCES.map((file) => readFile(file, 'utf8')));
    const named = namesInConfigSource(sources.join('\n'));
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter((name) => !readByConfig.has(name))).toEqual([]);
  });

  it('documents every variable config reads', () => {
    const documented = (name: string) => table.variables.has(name) || table.s3Aliases.has(name) || name in READ_BUT_NOT_A_ROW;
    expect([...readByConfig].filter((name) => !documented(name)).sort()).toEqual([]);
  });

  it('reads every variable it documents, and every S3_X name it says stands for a BLOB_S3_X', () => {
    const unread = [...table.variables].filter((name) => !readByConfig.has(name) && !(name in ROWS_NOT_READ_BY_CONFIG));
    expect(unread.sort()).toEqual([]);
    expect([...table.s3Aliases].filter((name) => !readByConfig.has(name)).sort()).toEqual([]);
  });

  it('needs every exception it lists', () => {
    expect(Object.keys(READ_BUT_NOT_A_ROW).filter((name) => !readByConfig.has(name) || table.variables.has(name))).toEqual([]);
    expect(Object.keys(ROWS_NOT_READ_BY_CONFIG).filter((name) => readByConfig.has(name) || !table.variables.has(name))).toEqual(
      [],
    );
  });
});
