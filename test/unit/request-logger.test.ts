import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLogger } from '../../src/http/request-logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, parent: pino({ level: 'info' }, stream) };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('a request logger', () => {
  it('writes what a pino child would, bindings, fields and message, once it is used', async () => {
    const { lines, parent } = capture();
    const log = requestLogger(parent, { requestId: 'r-1' }, {});
    log.info({ statusCode: 401 }, 'request completed');
    log.error('plain %s', 'message');
    log.debug('below the level');
    await flush();
    expect(lines).toMatchObject([
      { level: 30, requestId: 'r-1', statusCode: 401, msg: 'request completed' },
      { level: 50, requestId: 'r-1', msg: 'plain message' },
    ]);
  });

  it("follows the route's level and a level set later", async () => {
    const { lines, parent } = capture();
    const quiet = requestLogger(parent, { requestId: 'r-2' }, { level: 'warn' });
    expect(quiet.level).toBe('warn');
    quiet.info('dropped');
    quiet.level = 'debug';
    quiet.debug('kept');
    await flush();
    expect(lines.map((line) => line.msg)).toEqual(['kept']);
    expect(requestLogger(parent, {}, {}).level).toBe('info');
  });

  it('makes children that keep the request bindings', async () => {
    const { lines, parent } = capture();
    requestLogger(parent, { requestId: 'r-3' }, {}).child({ runId: 'x' }).warn('nested');
    await flush();
    expect(lines).toMatchObject([{ requestId: 'r-3', runId: 'x', msg: 'nested' }]);
  });
});
