import { describe, expect, it } from 'vitest';
import { createExecution, runToEnd, sendMessage, streamOf } from '../../helpers/executions.js';
import { signUp } from '../../helpers/factories.js';
import { client } from '../../helpers/http.js';
import { seriesValue } from '../../helpers/metrics.js';
import { privateRedis, REDIS_SERVER } from '../../helpers/redis-server.js';
import { startServer } from '../../helpers/server.js';

const TOKEN = 'metrics-token-0123456789abcdef';

describe.skipIf(!REDIS_SERVER)('operations in distributed mode (a private Redis)', () => {
  it('readyz answers 503 soon after Redis goes away, and ready again once it is back', async () => {
    const redis = await privateRedis();
    const server = await startServer({ REDIS_URL: redis.url, READY_CHECK_TIMEOUT_MS: '500' });
    const api = client(server.url);
    try {
      const ready = await api.get<{ checks: Record<string, string> }>('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks.redis).toBe('ok');

      await redis.kill();
      const started = Date.now();
      const down = await api.get<{ status: string; checks: Record<string, string> }>('/readyz');
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('unready');
      expect(down.body.checks.redis).not.toBe('ok');
      expect(down.body.checks.database).toBe('ok');
      expect(Date.now() - started).toBeLessThan(2000);
      expect((await api.get('/healthz')).status).toBe(200);

      await redis.start();
      await expect.poll(async () => (await api.get('/readyz')).status, { timeout: 10_000, interval: 200 }).toBe(200);
      // The node's other connections are back too: a run goes through the queue again. (Closing
      // while they are still reconnecting can hang the close: BullMQ's, not this test's subject.)
      const person = await signUp(api);
      const { stream } = await runToEnd(api, person, 'ticker', '1 1');
      expect(stream.events.at(-1)).toMatchObject({ payload: { stop_reason: { type: 'end_turn' } } });
    } finally {
      await server.close();
      await redis.stop();
    }
  });

  it("metrics read the run queue's job counts", async () => {
    const redis = await privateRedis();
    const server = await startServer({ REDIS_URL: redis.url, METRICS_TOKEN: TOKEN });
    const api = client(server.url);
    const scrape = async () => (await api.get<string>('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text;
    try {
      expect(seriesValue(await scrape(), 'skillet_run_queue_jobs{state="active"}')).toBe(0);
      const person = await signUp(api);
      const created = await createExecution(api, person, 'hangs', 'x');
      const stream = await streamOf(api, person, created.id);
      await sendMessage(api, person, created.id, 'x');
      await stream.waitFor(3);
      const text = await scrape();
      expect(seriesValue(text, 'skillet_run_queue_jobs{state="active"}')).toBe(1);
      expect(seriesValue(text, 'skillet_run_queue_jobs{state="waiting"}')).toBe(0);
      expect(seriesValue(text, 'skillet_runs_in_progress')).toBe(1);
      expect(seriesValue(text, 'skillet_event_streams_open')).toBe(1);
    } finally {
      await server.close();
      await redis.stop();
    }
  });
});
