import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject } from '../../helpers/build.js';
import { removeDataFolder } from '../../helpers/sandbox.js';

/**
 * A server started on a port another program holds says so in one sentence naming the
 * setting to change, and exits non-zero without a stack trace (issue 51).
 */
describe('starting on a port that is taken', () => {
  let build: Awaited<ReturnType<typeof buildProject>>;
  let dataDir: string;
  const holder = createServer();
  let port: number;

  beforeAll(async () => {
    build = await buildProject();
    dataDir = await mkdtemp(path.join(tmpdir(), 'skillet-port-'));
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  }, 120_000);

  afterAll(async () => {
    holder.close();
    await build?.remove();
    if (dataDir) await removeDataFolder(dataDir);
  });

  async function start(settings: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [path.join(build.dir, 'src/main.js')], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        LOG_LEVEL: 'warn',
        COMPUTER_POOL_SIZE: '0',
        SCRIPT_POOL_SIZE: '0',
        ...settings,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, stderr };
  }

  it('says the port is taken and how to choose another, and exits 1', async () => {
    const { code, stderr } = await start({ PORT: String(port), HOST: '127.0.0.1' });
    expect(code).toBe(1);
    expect(stderr).toContain(
      `Skillet cannot listen on 127.0.0.1:${port}: another program is already using port ${port}. Stop that program, or choose another port with PORT, for example PORT=${port + 1} npm start.`,
    );
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stderr).not.toContain('EADDRINUSE');
  }, 60_000);

  it('names METRICS_PORT when the metrics port is the one taken', async () => {
    const { code, stderr } = await start({ PORT: '0', METRICS_PORT: String(port) });
    expect(code).toBe(1);
    expect(stderr).toContain(
      `another program is already using port ${port}. Stop that program, or choose another port with METRICS_PORT`,
    );
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
  it('names HOST when the address is not one of this machine', async () => {
    // 192.0.2.0/24 is set aside for documentation (RFC 5737): no machine holds it.
    const { code, stderr } = await start({ PORT: String(port), HOST: '192.0.2.1' });
    expect(code).toBe(1);
    expect(stderr).toContain(
      `Skillet cannot listen on 192.0.2.1:${port}: 192.0.2.1 is not an address of this machine. Set HOST to one of its addresses`,
    );
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
