import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { freePort } from './server.js';

/** Whether this machine has a redis-server binary to start private servers from. */
export const REDIS_SERVER = spawnSync('redis-server', ['--version']).status === 0;

/**
 * A Redis of a test's own, on a port of its own and keeping nothing on disk, so the test may
 * kill it and start it again (the machine's shared Redis is not ours to restart).
 */
export interface PrivateRedis {
  url: string;
  /** SIGKILL: connections drop and everything it held is gone, as after a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;

  async function start(): Promise<void> {
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    server = started;
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      for (let attempt = 0; attempt < 200; attempt++) {
        const up = await probe.connect().then(
          () => probe.ping().then(() => true),
          () => false,
        );
        if (up) return;
        probe.disconnect();
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`redis-server did not start on port ${port}`);
    } finally {
      probe.disconnect();
    }
  }

  async function kill(): Promise<void> {
    const running = server;
    server = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  }

  await start();
  return { url, kill, start, stop: kill };
}
