import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import type { Tables } from '../../src/db/tables.js';
import { engineUnderTest, postgresUrl } from '../helpers/database.js';
import { type Client, client } from '../helpers/http.js';
import { type ServerProcesses, serverProcesses } from '../helpers/process.js';
import { expectArtifactsWhole, expectEachPaymentGrantedOnce, expectEventsWhole, expectLedgerBalanced } from './invariants.js';

/** The built server as real processes on one database (TEST_DB's engine), killed and started again round after round. */
export interface KillableServer {
  api: Client;
  baseUrl: string;
  blobDir: string;
  /** The server's own tables, read directly for the invariants. */
  db: Kysely<Tables>;
  /** SIGKILLs the running process, waits for it to die, and starts the next on the same data. */
  killAndRestart(): Promise<void>;
  close(): Promise<void>;
}

/** The schema serverProcesses made for `tag` (it adds a random suffix of its own). */
async function schemaOf(tag: string): Promise<string> {
  const admin = new pg.Client({ connectionString: postgresUrl() });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ nspname: string }>('select nspname from pg_namespace where nspname like $1', [
      `${tag}\\_%`,
    ]);
    if (rows.length !== 1 || !rows[0]) throw new Error(`expected one schema for ${tag}, found ${rows.length}`);
    return rows[0].nspname;
  } finally {
    await admin.end();
  }
}

export async function killableServer(name: string, settings: NodeJS.ProcessEnv): Promise<KillableServer> {
  const tag = `${name}${randomBytes(4).toString('hex')}`;
  const servers: ServerProcesses = await serverProcesses(tag, settings);
  let running: ChildProcess = await servers.start();
  // The engine serverProcesses chose by TEST_DB; the SQLite file exists once a server has started.
  const database =
    engineUnderTest() === 'postgres'
      ? openDatabase({ kind: 'postgres', url: postgresUrl(), schema: await schemaOf(tag), poolSize: 2 })
      : openDatabase({ kind: 'sqlite', file: path.join(servers.dataDir, 'skillet.db') });
  return {
    api: client(servers.baseUrl),
    baseUrl: servers.baseUrl,
    blobDir: path.join(servers.dataDir, 'blobs'),
    db: database.db,
    async killAndRestart() {
      const exited = once(running, 'exit');
      running.kill('SIGKILL');
      await exited;
      running = await servers.start();
    },
    async close() {
      await database.close();
      await servers.cleanUp();
    },
  };
}

/** Everything that must hold after any crash, on every row and blob the server has. */
export async function expectStoreWhole(server: KillableServer): Promise<void> {
  await expectLedgerBalanced(server.db);
  await expectEachPaymentGrantedOnce(server.db);
  await expectEventsWhole(server.db);
  await expectArtifactsWhole(server.db, server.blobDir);
}

/**
 * Where each round's kill lands, in milliseconds after its writes began: spread from at
 * once to late, since one kill lands at one random point and the writes differ by stage.
 */
export const KILL_DELAYS_MS = [0, 20, 60, 120, 250, 450];

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
