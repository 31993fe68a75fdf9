import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';

/**
 * The layering rules (routes -> domain -> store -> database), read from the source so a
 * break fails here rather than in review: route files never reach a store, only stores
 * and src/db/ write queries, no import runs down-to-up, and no import circle exists.
 */

const SRC = path.join(PROJECT_ROOT, 'src');
const WEB = path.join(PROJECT_ROOT, 'web', 'src');

interface SourceFile {
  /** Relative to the project root, with forward slashes. */
  name: string;
  /** The text with comments blanked out (line breaks kept), so prose about queries does not count. */
  code: string;
}

async function sourceFiles(dir = SRC): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(full)));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      const name = path.relative(PROJECT_ROOT, full).split(path.sep).join('/');
      files.push({ name, code: withoutComments(await readFile(full, 'utf8')) });
    }
  }
  return files;
}

/** Blanks `//` and `/* *\/` comments, leaving strings and templates (and so sql`...`) alone. */
function withoutComments(text: string): string {
  let out = '';
  // Open template literals; a `${` inside one pushes the brace depth it returns to.
  const templates: number[] = [];
  let braces = 0;
  let i = 0;
  const blank = (from: number, to: number) => text.slice(from, to).replace(/[^\n]/g, ' ');
  while (i < text.length) {
    const c = text[i];
    const inTemplate = templates.length > 0 && templates.at(-1) === braces;
    if (inTemplate) {
      if (c === '\\') {
        out += text.slice(i, i + 2);
        i += 2;
      } else if (c === '`') {
        templates.pop();
        out += c;
        i++;
      } else if (c === '$' && text[i + 1] === '{') {
        braces++;
        out += '${';
        i += 2;
      } else {
        out += c;
        i++;
      }
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out += blank(i, stop);
      i = stop;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += blank(i, stop);
      i = stop;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '`') {
      templates.push(braces);
      out += c;
      i++;
    } else {
      if (c === '{') braces++;
      if (c === '}') braces--;
      out += c;
      i++;
    }
  }
  return out;
}

function lineOf(code: string, index: number): number {
  return code.slice(0, index).split('\n').length;
}

/** Module specifiers of static imports and re-exports, and of dynamic `import()` calls. */
function importsOf(code: string): { specifier: string; line: number }[] {
  const found: { specifier: string; line: number }[] = [];
  const patterns = [
    /\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
  ];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) found.push({ specifier: match[1] ?? '', line: lineOf(code, match.index) });
  }
  return found;
}

const isStore = (name: string) => name.endsWith('.store.ts');
const isDatabaseLayer = (name: string) => name.startsWith('src/db/');

/**
 * What building or running a query looks like: Kysely's query and schema builders, running
 * a built query, the `sql` template and its helpers, and the drivers' own calls. Starting a
 * transaction or taking a connection is not a query (the domain decides what one unit of
 * work is), so `.transaction().execute(` and `.connection().execute(` are left out.
 */
const QUERY_PATTERNS: { what: string; pattern: RegExp }[] = [
  {
    what: 'Kysely query builder',
    pattern: /\.(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)\s*\(/g,
  },
  { what: 'Kysely schema builder', pattern: /\.schema\s*\.\s*(create|alter|drop)\w*\s*\(/g },
  { what: 'running a query', pattern: /\.(execute|executeTakeFirst|executeTakeFirstOrThrow|executeQuery)\s*\(/g },
  { what: 'sql template', pattern: /\bsql\s*(<[^`;]*?>)?\s*`/g },
  { what: 'sql helper', pattern: /\bsql\s*\.\s*(raw|ref|lit|val|id|table|join|literal)\s*\(/g },
  { what: 'driver query', pattern: /\.(prepare|query|exec)\s*\(\s*[`'"]/g },
];
const UNIT_OF_WORK = /\.(transaction|connection)\s*\(\s*\)(\s*\.\s*setIsolationLevel\s*\([^)]*\))?\s*\.\s*execute\s*\($/;

function queriesIn(code: string): { what: string; line: number; text: string }[] {
  const found: { what: string; line: number; text: string }[] = [];
  for (const { what, pattern } of QUERY_PATTERNS) {
    for (const match of code.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (what === 'running a query' && UNIT_OF_WORK.test(code.slice(Math.max(0, end - 200), end))) continue;
      found.push({ what, line: lineOf(code, match.index), text: match[0].replace(/\s+/g, '') });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/** Each file's project imports (type imports included), by name, resolved as the compilers do. */
function importGraph(files: SourceFile[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const { specifier } of importsOf(file.code)) {
      if (!specifier.startsWith('.')) continue;
      const base = path.join(PROJECT_ROOT, path.dirname(file.name), specifier.replace(/\.js$/, ''));
      const found = [`${base}.ts`, `${base}.tsx`].find((candidate) => existsSync(candidate));
      if (found) targets.add(path.relative(PROJECT_ROOT, found).split(path.sep).join('/'));
    }
    graph.set(file.name, [...targets]);
  }
  return graph;
}

/** The import circles: strongly connected groups of more than one file, or a file importing itself (Tarjan). */
function circlesOf(graph: Map<string, string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (name: string) => {
    order.set(name, order.size);
    low.set(name, order.get(name) as number);
    stack.push(name);
    onStack.add(name);
    for (const next of graph.get(name) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(name, Math.min(low.get(name) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(name, Math.min(low.get(name) as number, order.get(next) as number));
    }
    if (low.get(name) !== order.get(name)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== name);
    if (group.length > 1 || graph.get(name)?.includes(name)) circles.push(group.sort());
  };
  for (const name of graph.keys()) if (!order.has(name)) visit(name);
  return circles;
}

/**
 * The layers, lowest first. The foundation (the database layer and the few root modules
 * every feature reads) and the stores sit below the domain, route files above it, and the
 * assembly (composition root, entry points, the command line) above everything.
 */
const FOUNDATION = new Set(
  [
    'clock',
    'config',
    'config-env',
    'config-load',
    'config-sections',
    'errors',
    'language-models',
    'model-prices',
    'paths',
    'secrets',
    'signed-values',
  ].map((name) => `src/${name}.ts`),
);
const ASSEMBLY = new Set([
  'src/api-reference.ts',
  'src/app.ts',
  'src/background.ts',
  'src/compose.ts',
  'src/main.ts',
  'src/worker.ts',
]);
const LAYER_NAMES = ['foundation', 'store', 'domain', 'routes', 'assembly'] as const;

function layerOf(name: string): number {
  if (isDatabaseLayer(name) || FOUNDATION.has(name)) return 0;
  if (isStore(name)) return 1;
  if (ASSEMBLY.has(name) || name.startsWith('src/cli/')) return 4;
  if (name.endsWith('.routes.ts')) return 3;
  return 2;
}

/**
 * A domain module whose imports all reach the foundation (or other such modules) holds
 * values and pure functions only, such as the event codec; every layer may use it.
 */
function valueModules(graph: Map<string, string[]>): Set<string> {
  const values = new Set([...graph.keys()].filter((name) => layerOf(name) === 0));
  let grew = true;
  while (grew) {
    grew = false;
    for (const [name, targets] of graph) {
      if (layerOf(name) === 2 && !values.has(name) && targets.every((target) => values.has(target))) {
        values.add(name);
        grew = true;
      }
    }
  }
  return values;
}

describe('the layering rule', () => {
  it('finds the source, its route files and its stores', async () => {
    const files = await sourceFiles();
    expect(files.filter((file) => file.name.endsWith('.routes.ts')).length).toBeGreaterThan(5);
    expect(files.filter((file) => isStore(file.name)).length).toBeGreaterThan(5);
  });

  it('route files never import a store', async () => {
    const breaks: string[] = [];
    for (const file of await sourceFiles()) {
      if (!file.name.endsWith('.routes.ts')) continue;
      for (const { specifier, line } of importsOf(file.code)) {
        if (/\.store(\.(js|ts))?$/.test(specifier)) breaks.push(`${file.name}:${line} imports ${specifier}`);
      }
    }
    expect(breaks).toEqual([]);
  });

  it('only *.store.ts files and src/db/ build or run queries', async () => {
    const breaks: string[] = [];
    for (const file of await sourceFiles()) {
      if (isStore(file.name) || isDatabaseLayer(file.name)) continue;
      for (const query of queriesIn(file.code)) breaks.push(`${file.name}:${query.line} ${query.what} (${query.text})`);
    }
    expect(breaks).toEqual([]);
  });
  it('has no import circle in the server, type imports included', async () => {
    expect(circlesOf(importGraph(await sourceFiles()))).toEqual([]);
  });

  it('has no import circle in the web app', async () => {
    const files = await sourceFiles(WEB);
    expect(files.length).toBeGreaterThan(20);
    expect(circlesOf(importGraph(files))).toEqual([]);
  });

  it('never imports up the layers: foundation, store, domain, routes, assembly', async () => {
    const graph = importGraph(await sourceFiles());
    const values = valueModules(graph);
    const breaks: string[] = [];
    for (const [name, targets] of graph) {
      for (const target of targets) {
        if (values.has(target) || layerOf(target) <= layerOf(name)) continue;
        breaks.push(`${name} (${LAYER_NAMES[layerOf(name)]}) imports ${target} (${LAYER_NAMES[layerOf(target)]})`);
      }
    }
    expect(breaks).toEqual([]);
  });

  it('keeps the context a set of ports: it imports types only, and only the assembly builds it', async () => {
    const files = await sourceFiles();
    const context = files.find((file) => file.name === 'src/context.ts');
    const valueImports = importsOf(context?.code ?? '').filter(({ line }) => {
      const text = context?.code.split('\n')[line - 1] ?? '';
      return !/^\s*import\s+type\b/.test(text);
    });
    expect(valueImports).toEqual([]);
    const composers = [...importGraph(files)].filter(([, targets]) => targets.includes('src/compose.ts'));
    expect(composers.map(([name]) => name).every((name) => layerOf(name) === 4)).toBe(true);
  });
});

/**
 * The folders, lowest first. A folder may import the foundation and the folders below it,
 * never one above: the sandbox at the bottom confines processes and knows no feature; the
 * run's life (runs/) sits above everything it uses, and what reacts to a run (webhooks,
 * threads, the cluster) above it. The assembly (compose.ts and the entry points) tops them all.
 */
const FOLDER_ORDER = [
  'sandbox',
  'http',
  'realtime',
  'ledger',
  'identity',
  'artifacts',
  'files',
  'skills',
  'models',
  'runtime',
  'webhooks',
  'billing',
  'marketplace',
  'runs',
  'distributed',
  'threads',
  'oauth',
  'consent',
  'activation',
  'mcp',
  'ops',
  'webapp',
  'docs',
] as const;
/** Folders every folder may use beside the root modules: the database layer, mail, the ports, the SDK's wire types. */
const FOUNDATION_FOLDERS = new Set(['db', 'mail', 'ports', 'sdk']);

/** A file's folder: its first folder under src/, `foundation` for the foundation, `assembly` for the entry points and the command line. */
function folderOf(name: string): string {
  const parts = name.replace(/^src\//, '').split('/');
  if (parts.length === 1) return ASSEMBLY.has(name) ? 'assembly' : 'foundation';
  const folder = parts[0] ?? '';
  if (folder === 'cli') return 'assembly';
  return FOUNDATION_FOLDERS.has(folder) ? 'foundation' : folder;
}

function folderRank(folder: string): number {
  if (folder === 'foundation') return 0;
  if (folder === 'assembly') return FOLDER_ORDER.length + 1;
  const at = (FOLDER_ORDER as readonly string[]).indexOf(folder);
  return at < 0 ? -1 : at + 1;
}

/** Each import from one folder into another, as `from -> to (file -> file)`. */
function folderArrows(graph: Map<string, string[]>): { from: string; to: string; line: string }[] {
  const arrows: { from: string; to: string; line: string }[] = [];
  for (const [name, targets] of graph) {
    for (const target of targets) {
      const from = folderOf(name);
      const to = folderOf(target);
      if (from !== to) arrows.push({ from, to, line: `${name} -> ${target}` });
    }
  }
  return arrows;
}

/**
 * The classes a file imports from another feature folder, errors aside (throwing another
 * folder's error is using it, not assembling it).
 */
function classesImportedFromOtherFolders(
  file: SourceFile,
  graph: Map<string, string[]>,
  codeOf: Map<string, string>,
): Set<string> {
  const classes = new Set<string>();
  const targets = graph.get(file.name) ?? [];
  for (const match of file.code.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g)) {
    const base = path.join(path.dirname(file.name), (match[2] ?? '').replace(/\.js$/, ''));
    const target = targets.find((name) => name.replace(/\.tsx?$/, '') === base.split(path.sep).join('/'));
    if (!target || folderOf(target) === folderOf(file.name) || folderOf(target) === 'foundation') continue;
    for (const item of (match[1] ?? '').split(',')) {
      const [imported = '', local = imported] = item
        .replace(/^\s*type\s+/, '')
        .trim()
        .split(/\s+as\s+/);
      const isError = new RegExp(`class\\s+${imported}\\s+extends\\s+\\w*Error\\b`).test(codeOf.get(target) ?? '');
      if (/^[A-Z]/.test(local) && !isError) classes.add(local);
    }
  }
  return classes;
}

describe('the folder rule', () => {
  it('places every folder of src/ in the order', async () => {
    const folders = new Set((await sourceFiles()).map((file) => folderOf(file.name)));
    expect([...folders].filter((folder) => folderRank(folder) < 0)).toEqual([]);
  });

  it('never imports a folder above its own', async () => {
    const breaks = folderArrows(importGraph(await sourceFiles()))
      .filter(({ from, to }) => folderRank(to) > folderRank(from))
      .map(({ line }) => line);
    expect(breaks).toEqual([]);
  });

  it('keeps the sandbox free of features: it imports only itself and the foundation', async () => {
    const breaks = folderArrows(importGraph(await sourceFiles()))
      .filter(({ from, to }) => from === 'sandbox' && to !== 'foundation')
      .map(({ line }) => line);
    expect(breaks).toEqual([]);
  });

  it('keeps the foundation below every feature', async () => {
    const breaks = folderArrows(importGraph(await sourceFiles()))
      .filter(({ from, to }) => from === 'foundation' && to !== 'foundation')
      .map(({ line }) => line);
    expect(breaks).toEqual([]);
  });

  // app.ts is the HTTP half of the composition root: it takes the node compose.ts built and
  // builds the Fastify server over it.
  it('assembles in compose.ts alone: no other file builds a part of another folder', async () => {
    const files = await sourceFiles();
    const graph = importGraph(files);
    const codeOf = new Map(files.map((file) => [file.name, file.code]));
    const breaks: string[] = [];
    for (const file of files) {
      if (file.name === 'src/compose.ts' || file.name === 'src/app.ts') continue;
      const classes = classesImportedFromOtherFolders(file, graph, codeOf);
      for (const match of file.code.matchAll(/\bnew\s+([A-Z]\w*)\s*[(<]/g)) {
        const built = match[1] ?? '';
        if (classes.has(built)) breaks.push(`${file.name}:${lineOf(file.code, match.index)} builds ${built}`);
      }
    }
    expect(breaks).toEqual([]);
  });
});

describe('the rule reader', () => {
  it('sees through comments but not through strings or templates', () => {
    const code = withoutComments(
      `// db.selectFrom('a')\nconst s = '//x'; /* .insertInto( */ const t = \`a\${b}c\`;\nsql\`select 1\`;`,
    );
    expect(queriesIn(code).map((query) => query.line)).toEqual([3]);
    expect(code).toContain("'//x'");
    expect(code).toContain(`\`a\${b}c\``);
  });

  it('tells a query from a unit of work', () => {
    const code = "await db.transaction().execute(async (trx) => trx.updateTable('t').set(v).execute());";
    expect(queriesIn(code).map((query) => query.what)).toEqual(['Kysely query builder', 'running a query']);
    expect(queriesIn('db.connection()\n  .execute(work)')).toEqual([]);
    expect(queriesIn('sql<number>`count(*)`')).toHaveLength(1);
  });

  it('reads static, re-exported and dynamic imports', () => {
    const code = "import { a } from './a.store.js';\nexport { b } from './b.js';\nconst c = await import('./c.store.js');";
    expect(importsOf(code).map((found) => found.specifier)).toEqual(['./a.store.js', './b.js', './c.store.js']);
  });
  it('finds a circle through type imports, and none in a chain', () => {
    const chain = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', []],
    ]);
    expect(circlesOf(chain)).toEqual([]);
    expect(circlesOf(new Map([...chain, ['c', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(circlesOf(new Map([['a', ['a']]]))).toEqual([['a']]);
    const code = "import type { A } from './a.js';\nexport type { B } from './b.js';";
    expect(importsOf(code).map((found) => found.specifier)).toEqual(['./a.js', './b.js']);
  });

  it('ranks files into layers, and lets any layer use a module of values', () => {
    expect(['src/db/tables.ts', 'src/executions/events.store.ts', 'src/executions/runner.ts'].map(layerOf)).toEqual([0, 1, 2]);
    expect(['src/executions/executions.routes.ts', 'src/compose.ts', 'src/cli/main.ts'].map(layerOf)).toEqual([3, 4, 4]);
    const graph = new Map([
      ['src/x/codec.ts', ['src/db/tables.ts']],
      ['src/x/service.ts', ['src/x/codec.ts', 'src/x/x.store.ts']],
      ['src/db/tables.ts', []],
      ['src/x/x.store.ts', []],
    ]);
    expect([...valueModules(graph)].sort()).toEqual(['src/db/tables.ts', 'src/x/codec.ts']);
  });
});
