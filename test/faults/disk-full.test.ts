import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Artifact } from '../../src/sdk/types.js';
import { bytesOf, runForArtifact, sha256 } from '../helpers/artifacts.js';
import { balanceOf, transactionsOf } from '../helpers/billing.js';
import { runToEnd } from '../helpers/executions.js';
import { session, signUp, type TestUser } from '../helpers/factories.js';
import { type Client, client } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { expectArtifactsWhole, expectEventsWhole, expectLedgerBalanced } from './invariants.js';

const run = promisify(execFile);
const KIB = 1024;

/** A 1 MiB tmpfs as BLOB_DIR: a disk that fills up for real, with ENOSPC from the kernel. */
async function smallDisk(): Promise<{ dir: string } | { refused: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-full-disk-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    return { dir };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    return { refused: (error as Error).message.trim() };
  }
}

const disk = await smallDisk();
const diskDir = 'dir' in disk ? disk.dir : '';
// BLOB_DIR is a folder on the small disk; what else fills the disk sits beside it.
const blobDir = diskDir && path.join(diskDir, 'blobs');
if ('refused' in disk)
  console.warn(`\n[skillet] cannot mount a small tmpfs here (${disk.refused}): skipping the disk-full faults.\n`);

let server: TestServer;
let api: Client;

beforeAll(async () => {
  if (!blobDir) return;
  server = await startServer({ BLOB_DIR: blobDir, SIGNUP_CREDITS: '10' });
  api = client(server.url);
});
afterAll(async () => {
  await server?.close();
  if (!diskDir) return;
  await run('umount', [diskDir]);
  await rm(diskDir, { recursive: true, force: true });
});

const filesInput = (files: { path: string; bytes: number }[]) => JSON.stringify({ files });
const artifactsOf = async (user: TestUser) => (await api.get<Artifact[]>('/api/v1/artifacts', { headers: session(user) })).body;

/** A run of priced-writer whose files do not fit: failed, said why, closed, refunded, nothing half-written. */
async function expectCleanFailure(owner: TestUser, files: { path: string; bytes: number }[]) {
  const before = (await balanceOf(api, owner)).balance;
  const { created, stream } = await runToEnd(api, owner, 'priced-writer', filesInput(files));
  expect(stream.droppedBy).toBeUndefined();
  expect(stream.events.slice(-2)).toEqual([
    expect.objectContaining({
      type: 'agent.info',
      payload: { message: expect.stringMatching(/files could not be stored.*ENOSPC|no space left/i) },
    }),
    expect.objectContaining({ type: 'session.status_idle', payload: { stop_reason: { type: 'error' } } }),
  ]);
  const status = await api.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(owner) });
  expect(status.body.status).toBe('failed');
  // The service failed the run, not its input (DESIGN §8): the price held at start comes back.
  expect((await balanceOf(api, owner)).balance).toBe(before);
  const ledger = await transactionsOf(api, owner);
  expect(ledger.slice(0, 2)).toEqual([
    expect.objectContaining({ amount: 2, description: expect.stringMatching(/^Refund of run /) }),
    expect.objectContaining({ type: 'usage', amount: -2, executionId: created.id }),
  ]);
  // Each test's owner has run nothing else that writes files: this is the run's artifact.
  expect(await artifactsOf(owner)).toEqual([expect.objectContaining({ status: 'failed', fileList: [] })]);
  await expectArtifactsWhole(server.db.db, blobDir);
}

describe.skipIf(!blobDir)('a full disk under the blob store', () => {
  it('a file larger than the disk: the run fails cleanly and the server keeps serving', async () => {
    const owner = await signUp(api);
    await expectCleanFailure(owner, [{ path: 'big.bin', bytes: 2048 * KIB }]);
    expect((await runToEnd(api, owner, 'ticker', '2 1')).stream.events.at(-1)?.type).toBe('session.status_idle');
  });

  it('files that fit one by one but not together: the ones already staged go too', async () => {
    const owner = await signUp(api);
    await expectCleanFailure(owner, [
      { path: 'a.bin', bytes: 400 * KIB },
      { path: 'b.bin', bytes: 400 * KIB },
      { path: 'c.bin', bytes: 400 * KIB },
    ]);
  });

  it('a disk filled by something else: runs fail until space is freed, then the same run succeeds', async () => {
    const owner = await signUp(api);
    const filler = path.join(diskDir, 'filler');
    await writeFile(filler, Buffer.alloc(900 * KIB, 1));
    const files = [{ path: 'report.bin', bytes: 300 * KIB }];
    try {
      await expectCleanFailure(owner, files);
    } finally {
      await rm(filler);
    }
    const { artifactId } = await runForArtifact(api, owner, 'priced-writer', filesInput(files));
    const download = await bytesOf(`${server.url}/api/v1/artifacts/${artifactId}/download`, session(owner));
    expect(download.status).toBe(200);
    expect(download.body).toHaveLength(300 * KIB);
    const [artifact] = (await artifactsOf(owner)).filter((one) => one.id === artifactId);
    expect(artifact).toMatchObject({ status: 'completed' });
    expect(artifact?.fileList).toEqual([{ path: 'report.bin', size: 300 * KIB }]);
    const blobs = await server.db.db
      .selectFrom('artifact_files')
      .select('sha256')
      .where('artifact_id', '=', artifactId)
      .execute();
    expect(blobs).toEqual([{ sha256: sha256(download.body) }]);
    await expectArtifactsWhole(server.db.db, blobDir);
    await expectEventsWhole(server.db.db);
    await expectLedgerBalanced(server.db.db);
  });
});
