import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { API, type Checker, SymbolFlags, type Type, TypeFlags, type UnionType } from 'typescript/unstable/async';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { engineUnderTest, freshDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * Drift guard: `Tables` (src/db/tables.ts) is what every query is typed against, and the
 * migrations are what the database really holds; nothing else ties the two together. The
 * interface cannot be read at run time, so TypeScript's own checker reads it (resolving
 * aliases such as `ExecutionStatus` and kysely's `Generated`), and the live schema of a
 * freshly migrated database, on the engine of the project, is compared with it.
 */

const TABLES_FILE = path.join(PROJECT_ROOT, 'src', 'db', 'tables.ts');
const KYSELY_BOOKKEEPING = new Set(['kysely_migration', 'kysely_migration_lock']);

/**
 * What a column hands back to the code, as TypeScript sees it: `string` or `number`. A
 * declared type of anything else (a boolean, an object) is kept as written, so it shows in
 * the diff; so is a live column type this test does not know.
 */
type ColumnKind = 'string' | 'number' | `unknown: ${string}`;

interface ColumnShape {
  kind: ColumnKind;
  nullable: boolean;
}

type TableShapes = Record<string, Record<string, ColumnShape>>;

interface DeclaredTables {
  shapes: TableShapes;
  /** `table.column` of every column an insert may leave out (`Generated<…>`, or a `ColumnType` whose insert type allows undefined). */
  omittableOnInsert: string[];
}

interface LiveTables {
  shapes: TableShapes;
  /** `table.column` of every column the database fills when an insert leaves it out. */
  filledByDatabase: Set<string>;
}

async function constituents(type: Type): Promise<readonly Type[]> {
  return type.flags & TypeFlags.Union ? (type as UnionType).getTypes() : [type];
}

async function declaredKind(checker: Checker, types: readonly Type[]): Promise<ColumnKind> {
  const values = types.filter((type) => !(type.flags & (TypeFlags.Null | TypeFlags.Undefined)));
  if (values.length > 0 && values.every((type) => type.flags & TypeFlags.StringLike)) return 'string';
  if (values.length > 0 && values.every((type) => type.flags & TypeFlags.NumberLike)) return 'number';
  return `unknown: ${(await Promise.all(values.map((type) => checker.typeToString(type)))).join(' | ')}`;
}

/** kysely's `ColumnType<S, I, U>` (and so `Generated<S>`) is an object of phantom `__select__` and `__insert__` properties. */
async function phantomProperty(checker: Checker, type: Type, name: '__select__' | '__insert__'): Promise<Type | undefined> {
  if (!(type.flags & TypeFlags.Object)) return undefined;
  const property = await checker.getPropertyOfType(type, name);
  return property ? checker.getTypeOfSymbol(property) : undefined;
}

async function declaredTables(): Promise<DeclaredTables> {
  const api = new API({ cwd: PROJECT_ROOT });
  try {
    const snapshot = await api.updateSnapshot({ openProjects: [path.join(PROJECT_ROOT, 'tsconfig.json')] });
    const project = await snapshot.getDefaultProjectForFile(TABLES_FILE);
    if (!project) throw new Error(`${TABLES_FILE} is in no TypeScript project`);
    const { checker } = project;
    const tablesSymbol = await checker.resolveName('Tables', SymbolFlags.Interface, { document: TABLES_FILE, position: 0 }, true);
    if (!tablesSymbol) throw new Error(`No interface Tables in ${TABLES_FILE}`);
    const shapes: TableShapes = {};
    const omittableOnInsert: string[] = [];
    for (const table of await checker.getPropertiesOfType(await checker.getDeclaredTypeOfSymbol(tablesSymbol))) {
      const rowType = await checker.getTypeOfSymbol(table);
      if (!rowType) throw new Error(`Tables.${table.name} has no type`);
      const columns: Record<string, ColumnShape> = {};
      for (const column of await checker.getPropertiesOfType(rowType)) {
        const declared = await checker.getTypeOfSymbol(column);
        if (!declared) throw new Error(`${table.name}.${column.name} has no type`);
        const selected = await constituents((await phantomProperty(checker, declared, '__select__')) ?? declared);
        const inserted = await phantomProperty(checker, declared, '__insert__');
        columns[column.name] = {
          kind: await declaredKind(checker, selected),
          nullable: selected.some((type) => type.flags & TypeFlags.Null),
        };
        if (inserted && (await constituents(inserted)).some((type) => type.flags & TypeFlags.Undefined)) {
          omittableOnInsert.push(`${table.name}.${column.name}`);
        }
      }
      shapes[table.name] = columns;
    }
    return { shapes, omittableOnInsert };
  } finally {
    await api.close();
  }
}

/** How each engine's column types come back to the code (database.ts parses timestamptz to ISO strings and int8 to numbers). */
function liveKind(columnType: string): ColumnKind {
  switch (columnType.toLowerCase()) {
    case 'text':
    case 'timestamp with time zone':
      return 'string';
    case 'integer':
    case 'bigint':
      return 'number';
    default:
      return `unknown: ${columnType}`;
  }
}

async function liveSqliteTables(database: Database): Promise<LiveTables> {
  const shapes: TableShapes = {};
  const filledByDatabase = new Set<string>();
  const { rows: tables } = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(database.db);
  for (const { name: table } of tables) {
    if (table.startsWith('sqlite_') || KYSELY_BOOKKEEPING.has(table)) continue;
    const { rows: columns } = await sql<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>`
      select name, type, "notnull", dflt_value, pk from pragma_table_info(${table})`.execute(database.db);
    const keyColumns = columns.filter((column) => column.pk > 0).length;
    const columnShapes: Record<string, ColumnShape> = {};
    shapes[table] = columnShapes;
    for (const column of columns) {
      // SQLite lets NULL into a text primary key of a rowid table (an old bug it keeps), but
      // the migrations mean a key, and PostgreSQL refuses NULL there: a key counts as not null.
      columnShapes[column.name] = { kind: liveKind(column.type), nullable: column.notnull === 0 && column.pk === 0 };
      // A lone `integer primary key` is the rowid, numbered by SQLite when left out.
      const rowid = keyColumns === 1 && column.pk === 1 && column.type.toLowerCase() === 'integer';
      if (column.dflt_value !== null || rowid) filledByDatabase.add(`${table}.${column.name}`);
    }
  }
  return { shapes, filledByDatabase };
}

async function livePostgresTables(database: Database): Promise<LiveTables> {
  if (!database.schema) throw new Error('The test database has no schema of its own');
  const shapes: TableShapes = {};
  const filledByDatabase = new Set<string>();
  const { rows } = await sql<{
    table_name: string;
    column_name: string;
    is_nullable: 'YES' | 'NO';
    data_type: string;
    column_default: string | null;
  }>`select table_name, column_name, is_nullable, data_type, column_default
       from information_schema.columns where table_schema = ${database.schema}`.execute(database.db);
  for (const row of rows) {
    if (KYSELY_BOOKKEEPING.has(row.table_name)) continue;
    const columnShapes = shapes[row.table_name] ?? {};
    shapes[row.table_name] = columnShapes;
    columnShapes[row.column_name] = { kind: liveKind(row.data_type), nullable: row.is_nullable === 'YES' };
    // A serial's default is its sequence's nextval.
    if (row.column_default !== null) filledByDatabase.add(`${row.table_name}.${row.column_name}`);
  }
  return { shapes, filledByDatabase };
}

/** Same content, keys in order, so a failure's diff lines the two sides up. */
function sorted(shapes: TableShapes): TableShapes {
  return Object.fromEntries(
    Object.keys(shapes)
      .sort()
      .map((table) => [table, Object.fromEntries(Object.entries(shapes[table] ?? {}).sort(([a], [b]) => a.localeCompare(b)))]),
  );
}

describe(`src/db/tables.ts against the migrated ${engineUnderTest()} schema`, () => {
  let dir: string;
  let database: TestDatabase;
  let declared: DeclaredTables;
  let live: LiveTables;

  // The checker loads the whole project (tsconfig.json): seconds, more on a busy machine.
  beforeAll(async () => {
    const migratedSchema = async (): Promise<LiveTables> => {
      dir = await mkdtemp(path.join(tmpdir(), 'skillet-tables-'));
      database = await freshDatabase(dir);
      return database.database.dialect === 'postgres'
        ? livePostgresTables(database.database)
        : liveSqliteTables(database.database);
    };
    [declared, live] = await Promise.all([declaredTables(), migratedSchema()]);
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('names exactly the tables the migrations create', () => {
    expect(Object.keys(declared.shapes).sort(), 'received: Tables; expected: the schema').toEqual(
      Object.keys(live.shapes).sort(),
    );
  });

  it('gives every table exactly its columns, each with the kind of value it holds and whether it may be null', () => {
    expect(sorted(declared.shapes), 'received: tables.ts; expected: the schema').toEqual(sorted(live.shapes));
  });

  it('lets an insert leave out only columns the database fills itself', () => {
    const withoutDefault = declared.omittableOnInsert.filter((column) => !live.filledByDatabase.has(column));
    expect(withoutDefault, 'optional on insert in tables.ts, but with no default in the schema').toEqual([]);
    // The guard above means something only if it saw such columns.
    expect(declared.omittableOnInsert).toContain('executions.id');
  });
});
