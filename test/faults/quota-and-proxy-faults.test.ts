import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { storedUsage } from '../../src/files/storage-quota.store.js';
import { type EgressProxy, startEgressProxy } from '../../src/sandbox/egress/egress-proxy.js';
import { session, signUp, type TestUser } from '../helpers/factories.js';
import { uploadRaw } from '../helpers/files.js';
import { type Client, client } from '../helpers/http.js';
import { connectRequest, ProxyClient } from '../helpers/proxy-client.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { applicationName, cutRepeatedly, namedPostgresUrl } from './postgres.js';

/**
 * Issue 50's quotas under faults: uploads into nearly full workspaces while this server's
 * PostgreSQL connections are cut, and the egress proxy's caps against destinations that
 * stall or drip and clients that hold connections or race past the byte quota.
 */

// Every connection of this file's server carries this name, so only ours are cut.
const NAME = applicationName('quotas');
vi.stubEnv('TEST_DATABASE_URL', namedPostgresUrl(NAME));
const BYTES = 60_000;
const FILES = 12;
let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer({
    WORKSPACE_STORAGE_LIMIT_BYTES: String(BYTES),
    WORKSPACE_FILE_LIMIT: String(FILES),
    RATE_LIMIT_REST_PER_MINUTE: '100000',
  });
  api = client(server.url);
});
afterAll(() => server?.close());

/** Blob names and sizes in the server's folder, and whether a temporary file is left. */
async function blobsOnDisk(): Promise<{ blobs: Map<string, number>; temporary: string[] }> {
  const settings = server.config.blobs;
  if (settings.kind !== 'folder') throw new Error('these faults need the blob folder');
  const blobs = new Map<string, number>();
  for (const shard of await readdir(settings.dir).catch(() => [])) {
    if (!/^[0-9a-f]{2}$/.test(shard)) continue;
    for (const name of await readdir(path.join(settings.dir, shard)))
      blobs.set(name, (await stat(path.join(settings.dir, shard, name))).size);
  }
  return { blobs, temporary: await readdir(path.join(settings.dir, 'tmp')).catch(() => []) };
}

/** What the workspace keeps, from its rows: the count and bytes the quota is checked against. */
const rowsOf = (owner: TestUser) =>
  server.db.db
    .selectFrom('input_files')
    .select(['id', 'filename', 'size', 'sha256'])
    .where('workspace_id', '=', owner.user.personalWorkspaceId)
    .execute();

describe('workspace storage quotas while PostgreSQL connections are cut', () => {
  it('stores nothing past the quota, counts exactly what is kept, leaves nothing of failed uploads, then fills to the quota', async () => {
    // One workspace runs into its bytes (large files), the other into its count (tiny files).
    const [byBytes, byCount] = [await signUp(api), await signUp(api)];
    // Near the quota before the cuts: 12,000 bytes left in one, 4 files in the other.
    expect((await uploadRaw(server.url, session(byBytes), 'first.bin', randomBytes(BYTES - 12_000))).status).toBe(201);
    for (let i = 0; i < FILES - 4; i++)
      expect((await uploadRaw(server.url, session(byCount), 'first.bin', randomBytes(10))).status).toBe(201);
    /** Each upload's bytes by its unique name, so any row can be checked against what was sent. */
    const sent = new Map<string, Buffer>();
    const outcome = new Map<string, number>();
    const attempt = (owner: TestUser, size: number) => {
      const name = `up-${randomBytes(6).toString('hex')}.bin`;
      const bytes = randomBytes(size);
      sent.set(name, bytes);
      return uploadRaw(server.url, session(owner), name, bytes).then((reply) => outcome.set(name, reply.status));
    };
    // Rounds cut every 2 ms land inside most uploads, between a blob's commit and its row's;
    // rounds cut every 10 ms let enough through to reach the quotas while cuts still land.
    let cuts = 0;
    for (const pauseMs of [2, 2, 10, 10, 10]) {
      const cutter = cutRepeatedly(NAME, pauseMs);
      try {
        await Promise.all([
          ...Array.from({ length: 8 }, (_, i) => attempt(byBytes, 1000 + i * 700)),
          ...Array.from({ length: 8 }, () => attempt(byCount, 10)),
        ]);
      } finally {
        cuts += await cutter.stop();
      }
    }
    expect(cuts).toBeGreaterThan(0);
    // A cut answers 503 (retry), never a 500; the quota answers 409/413 in words.
    const statuses = [...outcome.values()];
    expect(statuses).toContain(201);
    expect(statuses.filter((status) => status === 409 || status === 413).length).toBeGreaterThan(0);
    for (const status of statuses) expect([201, 409, 413, 503]).toContain(status);
    const listing = async () => (await api.get('/api/v1/files', { headers: session(byBytes) })).status;
    await vi.waitFor(async () => expect(await listing()).toBe(200), { timeout: 10_000 });
    const kept = [...(await rowsOf(byBytes)), ...(await rowsOf(byCount))];
    const stored = new Set(kept.map((row) => row.filename));
    for (const [name, status] of outcome) {
      // An acknowledged upload is kept; a refused one is not. A 503 may be either (the cut
      // can land after the commit), but only whole, as the next check says.
      if (status === 201) expect(stored.has(name), name).toBe(true);
      if (status === 409 || status === 413) expect(stored.has(name), name).toBe(false);
    }
    for (const row of kept) {
      const bytes = row.filename === 'first.bin' ? undefined : sent.get(row.filename);
      if (bytes)
        expect({ size: Number(row.size), sha256: row.sha256 }).toEqual({
          size: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        });
    }
    for (const owner of [byBytes, byCount]) {
      const rows = await rowsOf(owner);
      const bytes = rows.reduce((sum, row) => sum + Number(row.size), 0);
      // The quota's own accounting is the rows': no phantom bytes or files, and nothing past it.
      expect(await storedUsage(server.db.db, owner.user.personalWorkspaceId)).toEqual({ files: rows.length, bytes });
      expect(rows.length).toBeLessThanOrEqual(FILES);
      expect(bytes).toBeLessThanOrEqual(BYTES);
    }
    // On disk, exactly the kept files' blobs: no blob or temporary file of a failed upload,
    // once the database answers again (a blob stored for a row cut off goes then, not at a restart).
    await vi.waitFor(
      async () => {
        const disk = await blobsOnDisk();
        expect(disk.temporary).toEqual([]);
        expect(Object.fromEntries(disk.blobs)).toEqual(Object.fromEntries(kept.map((row) => [row.sha256, Number(row.size)])));
      },
      { timeout: 10_000, interval: 100 },
    );

    // With the database back, the bytes workspace fills to exactly its quota, and not a byte more.
    const left = BYTES - (await storedUsage(server.db.db, byBytes.user.personalWorkspaceId)).bytes;
    if (left > 0) expect((await uploadRaw(server.url, session(byBytes), 'rest.bin', randomBytes(left))).status).toBe(201);
    expect((await uploadRaw(server.url, session(byBytes), 'one.bin', Buffer.from('x'))).status).toBe(413);
    expect((await storedUsage(server.db.db, byBytes.user.personalWorkspaceId)).bytes).toBe(BYTES);
    // And the count workspace to exactly its count.
    for (let count = (await rowsOf(byCount)).length; count < FILES; count++)
      expect((await uploadRaw(server.url, session(byCount), `fill-${count}.bin`, Buffer.from('x'))).status).toBe(201);
    expect((await uploadRaw(server.url, session(byCount), 'more.bin', Buffer.from('x'))).status).toBe(409);
    expect(await storedUsage(server.db.db, byCount.user.personalWorkspaceId)).toMatchObject({ files: FILES });
  });
});

/** Node reads a socket up to 64 KiB at a time; the quota is checked after each read. */
const ONE_READ = 64 * 1024;
const LIFETIME_MS = 600;
let dir: string;
/** Accepts and never reads nor writes: a destination that stalls. */
let stall: NetServer;
/** A byte every 50 ms: a destination never idle. */
let drip: NetServer;
/** 1 MiB down every connection. */
let firehose: NetServer;
let echo: NetServer;
/** Takes a request and never answers it. */
let silentWeb: Server;
/** The destinations' own sockets: a paused one never sees its peer go, so each is destroyed at the end. */
const accepted = new Set<Socket>();
const requestsSeen: string[] = [];

const listening = (listener: Server | NetServer) => new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
const portOf = (listener: Server | NetServer) => (listener.address() as AddressInfo).port;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-proxy-faults-'));
  stall = createServer((socket) => socket.on('error', () => undefined).pause());
  drip = createServer((socket) => {
    const timer = setInterval(() => socket.write('.'), 50);
    socket.on('error', () => undefined).on('close', () => clearInterval(timer));
  });
  firehose = createServer((socket) => socket.on('error', () => undefined).write(Buffer.alloc(1024 * 1024, 'f')));
  echo = createServer((socket) => socket.pipe(socket).on('error', () => undefined));
  silentWeb = createHttpServer((request) => requestsSeen.push(request.url ?? ''));
  for (const listener of [stall, drip, firehose, echo]) listener.on('connection', (socket: Socket) => accepted.add(socket));
  await Promise.all([stall, drip, firehose, echo, silentWeb].map(listening));
});
afterAll(async () => {
  silentWeb.closeAllConnections();
  for (const socket of accepted) socket.destroy();
  await Promise.all([stall, drip, firehose, echo, silentWeb].map((one) => new Promise((resolve) => one.close(resolve))));
  await rm(dir, { recursive: true, force: true });
});

async function startProxy(caps: { bytesPerRun?: number; connectionLifetimeMs?: number }) {
  const lines: Record<string, unknown>[] = [];
  const socketPath = path.join(dir, `proxy-${randomBytes(4).toString('hex')}.sock`);
  const proxy: EgressProxy = await startEgressProxy({
    socketPath,
    policy: {
      allowedHosts: ['127.0.0.1'],
      allowPrivateAddresses: true,
      ports: [stall, drip, firehose, echo, silentWeb].map(portOf),
      bytesPerRun: caps.bytesPerRun ?? 1024 ** 3,
      connectionLifetimeMs: caps.connectionLifetimeMs ?? 60_000,
    },
    log: { info: (fields) => lines.push(fields) },
    runId: 'run-faults',
  });
  const open = (request: string) => {
    const opened = Date.now();
    const proxyClient = new ProxyClient(socketPath).send(request);
    return { proxyClient, lasted: proxyClient.closed.then(() => Date.now() - opened) };
  };
  return { proxy, lines, open };
}

/** Whether `promise` settles within `ms`: a cap that does not hold fails in words, not by the test's timeout. */
const within = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
const tunnelTo = (port: number) => connectRequest(`127.0.0.1:${port}`);
const getFrom = (port: number, at: string) => `GET http://127.0.0.1:${port}/${at} HTTP/1.1\r\nHost: x\r\n\r\n`;
const portsOf = (lines: Record<string, unknown>[]) => lines.map((line) => Number(line.port)).sort();

describe('the egress proxy’s caps against destinations that stall or drip', () => {
  it('closes held connections at their lifetime while the destination stalls, drips or never answers', async () => {
    const { proxy, lines, open } = await startProxy({ connectionLifetimeMs: LIFETIME_MS });
    try {
      const held = open(tunnelTo(portOf(stall)));
      const pushing = open(tunnelTo(portOf(stall)));
      const dripping = open(tunnelTo(portOf(drip)));
      const unanswered = open(getFrom(portOf(silentWeb), 'lifetime'));
      await pushing.proxyClient.until(/200 Connection Established/);
      // 4 MiB at a destination that reads none: the sandbox's side backs up, still the timer ends it.
      pushing.proxyClient.send(Buffer.alloc(4 * 1024 * 1024, 'p'));
      for (const connection of [held, pushing, dripping, unanswered]) {
        const lasted = await connection.lasted;
        // Counted from the arrival at the proxy, a moment after the client began; the rest is a loaded machine's slack.
        expect(lasted).toBeGreaterThanOrEqual(LIFETIME_MS - 20);
        expect(lasted).toBeLessThan(LIFETIME_MS + 2500);
      }
      expect(dripping.proxyClient.text()).toMatch(/\.{3,}$/);
      await vi.waitFor(() => expect(lines).toHaveLength(4));
      expect(lines.map((line) => line.closed)).toEqual(['lifetime', 'lifetime', 'lifetime', 'lifetime']);
      expect(portsOf(lines)).toEqual([portOf(stall), portOf(stall), portOf(drip), portOf(silentWeb)].sort());
    } finally {
      await proxy.close();
    }
    expect(lines).toHaveLength(4);
  });

  it('holds the byte quota across connections opened at once, refuses the ones past it, and logs each once', async () => {
    const QUOTA = 300_000;
    const { proxy, lines, open } = await startProxy({ bytesPerRun: QUOTA });
    const racing = [
      ...Array.from({ length: 6 }, () => open(tunnelTo(portOf(firehose)))),
      ...Array.from({ length: 4 }, () => open(tunnelTo(portOf(echo)))),
    ];
    // The echo tunnels push their own bytes both ways while the firehoses pour down.
    await Promise.all(
      racing.slice(6).map(async ({ proxyClient }) => {
        await Promise.race([proxyClient.until(/\r\n\r\n/), proxyClient.closed]);
        if (!proxyClient.socket.destroyed) proxyClient.send(Buffer.alloc(100_000, 'e'));
      }),
    );
    // 6 MiB are on offer: the quota must end every connection, long before the test's timeout.
    expect(await within(Promise.all(racing.map((connection) => connection.lasted)), 10_000)).toBe(true);
    // Past the quota every new connection is refused, saying why.
    const late = Array.from({ length: 5 }, () => open(tunnelTo(portOf(echo))));
    await Promise.all(late.map((connection) => connection.lasted));
    for (const { proxyClient } of late) expect(proxyClient.text()).toMatch(/^HTTP\/1\.1 403 this run has used all 300000 bytes/);
    await proxy.close();
    // Read as soon as close() settles: one line per connection, none missing nor twice. Which
    // of the racing ones got in before the firehoses spent the quota is the machine's to say.
    expect(lines).toHaveLength(racing.length + late.length);
    const allowed = lines.filter((line) => line.allowed === true);
    expect(allowed.length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.allowed === false).length).toBe(racing.length + late.length - allowed.length);
    for (const line of allowed) expect(line.closed).toBe('quota');
    for (const line of lines.filter((one) => one.allowed === false))
      expect(String(line.reason)).toContain('SKILL_NETWORK_BYTES_PER_RUN');
    const moved = allowed.reduce((sum, line) => sum + Number(line.bytesUp) + Number(line.bytesDown), 0);
    expect(moved).toBeGreaterThan(QUOTA);
    // Past by at most one read per connection: each admitted before the quota was spent may land one read before its check.
    expect(moved).toBeLessThanOrEqual(QUOTA + ONE_READ * racing.length);
    const received = racing.reduce((sum, { proxyClient }) => sum + proxyClient.data.length, 0);
    expect(received).toBeLessThanOrEqual(QUOTA + ONE_READ * racing.length);
  });

  it('close() settles while connections are held to stalled destinations, with every connection logged once', async () => {
    const { proxy, lines, open } = await startProxy({});
    const held = [open(tunnelTo(portOf(stall))), open(tunnelTo(portOf(drip))), open(getFrom(portOf(silentWeb), 'closing'))];
    const refused = open(tunnelTo(1));
    await Promise.all(held.slice(0, 2).map(({ proxyClient }) => proxyClient.until(/200 Connection Established/)));
    await vi.waitFor(() => expect(requestsSeen).toContain('/closing'));
    await refused.lasted;
    expect(await within(proxy.close(), 5000)).toBe(true);
    // Read at once: close() settling means the log is whole.
    expect(portsOf(lines)).toEqual([portOf(stall), portOf(drip), portOf(silentWeb), 1].sort());
    expect(lines.filter((line) => line.allowed === false)).toEqual([expect.objectContaining({ port: 1 })]);
    for (const line of lines.filter((one) => one.allowed === true)) expect(line.closed).toBeUndefined();
    await Promise.all(held.map((connection) => connection.lasted));
  });
});
