import { describe, expect, it as plain, vi } from 'vitest';
import { runToEnd } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { client } from '../../helpers/http.js';
import { seriesValue } from '../../helpers/metrics.js';
import { BUBBLEWRAP_HERE } from '../../helpers/sandbox.js';
import { freePort, startServer } from '../../helpers/server.js';
import { answerWith, startReceiver } from '../../helpers/webhook-receiver.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const it = withServer({
  METRICS_TOKEN: TOKEN,
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
  EXECUTION_TIMEOUT_MS: '1500',
  // Webhook receivers on 127.0.0.1; a failed attempt waits an hour for its retry.
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_MS: '20',
  WEBHOOK_RETRY_SCHEDULE: '3600',
});
const bearer = { authorization: `Bearer ${TOKEN}` };

describe('GET /metrics behind METRICS_TOKEN', () => {
  it('counts outbound webhook attempts by outcome', async ({ api, onTestFinished }) => {
    const person = await signUp(api);
    for (const status of [204, 500]) {
      const receiver = await startReceiver(answerWith(status));
      onTestFinished(() => receiver.close());
      const endpoint = await api.post<{ id: string }>('/api/v1/webhooks', {
        body: { url: receiver.url },
        headers: session(person),
      });
      await api.post(`/api/v1/webhooks/${endpoint.body.id}/test`, { headers: session(person) });
    }
    await vi.waitFor(async () => {
      const scrape = await api.get<string>('/metrics', { headers: bearer });
      expect(seriesValue(scrape.text, 'skillet_webhook_attempts_total{outcome="delivered"}')).toBe(1);
      expect(seriesValue(scrape.text, 'skillet_webhook_attempts_total{outcome="retrying"}')).toBe(1);
    });
  });

  it('is refused without the token, and with a wrong one', async ({ api }) => {
    const none = await api.get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    const wrong = await api.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    const short = await api.get('/metrics', { headers: { authorization: 'Bearer x' } });
    expect(short.status).toBe(401);
    expect(short.text).not.toContain('skillet_');
  });

  it("names the computer's system: this host's folders where no image is built", async ({ api }) => {
    const scrape = await api.get<string>('/metrics', { headers: bearer });
    expect(seriesValue(scrape.text, 'skillet_computer_image_info{version="host"}')).toBe(1);
  });

  it('counts requests by route pattern, runs by status and runtime, ledger grants and debits', async ({ api }) => {
    const person = await signUp(api);
    const { created } = await runToEnd(api, person, 'ticker', '2 10');
    const { created: hung } = await runToEnd(api, person, 'hangs', 'x');

    const text = await vi.waitFor(
      async () => {
        const scrape = await api.get<string>('/metrics', { headers: bearer });
        expect(scrape.status).toBe(200);
        expect(seriesValue(scrape.text, 'skillet_runs_finished_total{status="failed",runtime="script"}')).toBe(1);
        return scrape.text;
      },
      { timeout: 5000 },
    );
    expect(seriesValue(text, 'skillet_runs_finished_total{status="completed",runtime="script"}')).toBe(1);
    expect(text).toContain('skillet_run_duration_seconds_count{status="completed",runtime="script"} 1');
    expect(seriesValue(text, 'skillet_sandbox_kills_total{cause="time"}')).toBe(1);
    expect(
      seriesValue(
        text,
        'skillet_http_requests_total{method="POST",route="/api/v1/executions/:executionId/events",status_class="2xx"}',
      ),
    ).toBe(2);
    expect(
      seriesValue(text, 'skillet_http_requests_total{method="GET",route="/executions/:executionId/stream",status_class="2xx"}'),
    ).toBe(2);
    // Never the URL itself: a series per execution would grow without bound.
    expect(text).not.toContain(created.id);
    expect(text).not.toContain(hung.id);
    expect(seriesValue(text, 'skillet_ledger_credits_total{type="purchase",direction="grant"}')).toBeGreaterThanOrEqual(1000);
    expect(seriesValue(text, 'skillet_ledger_transactions_total{type="purchase",direction="grant"}')).toBeGreaterThanOrEqual(1);
    expect(seriesValue(text, 'skillet_event_streams_open')).toBe(0);
    expect(seriesValue(text, 'skillet_control_sockets_open')).toBe(0);
    expect(seriesValue(text, 'skillet_runs_in_progress')).toBe(0);
    // Two runs cannot have been stored, started and ended in fewer statements than that.
    expect(seriesValue(text, 'skillet_db_statements_total')).toBeGreaterThan(20);
    // Each run's claim and its end commit at the least; a commit is a statement too.
    const commits = seriesValue(text, 'skillet_db_commits_total') ?? 0;
    expect(commits).toBeGreaterThanOrEqual(4);
    expect(commits).toBeLessThan(seriesValue(text, 'skillet_db_statements_total') ?? 0);
    if (process.env.TEST_DISTRIBUTED !== '1') expect(text).not.toContain('skillet_run_queue_jobs{');
  });

  it('counts a run price as a debit', async ({ api }) => {
    const person = await signUp(api);
    const before =
      seriesValue(
        (await api.get<string>('/metrics', { headers: bearer })).text,
        'skillet_ledger_credits_total{type="usage",direction="debit"}',
      ) ?? 0;
    await runToEnd(api, person, 'priced-ticker', '1 1');
    const after = await api.get<string>('/metrics', { headers: bearer });
    expect(seriesValue(after.text, 'skillet_ledger_credits_total{type="usage",direction="debit"}')).toBeGreaterThan(before);
  });
});

plain('METRICS_PORT serves the metrics on a port of their own, without a token; the API port has none', async () => {
  const port = await freePort();
  const server = await startServer({ METRICS_PORT: String(port) });
  try {
    const scrape = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toContain('text/plain');
    const text = await scrape.text();
    expect(text).toContain('# TYPE skillet_http_requests_total counter');
    expect(text).toContain('skillet_process_resident_memory_bytes');
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    expect((await client(server.url).get('/metrics')).status).toBe(404);
  } finally {
    await server.close();
  }
});

plain('counts the warm sandboxes ready on the node, by kind, as its pools fill', async () => {
  const server = await startServer({ METRICS_TOKEN: TOKEN, SCRIPT_POOL_SIZE: '1', COMPUTER_POOL_SIZE: '0' });
  try {
    const scrape = async () => (await client(server.url).get<string>('/metrics', { headers: bearer })).text;
    if (!BUBBLEWRAP_HERE) {
      // Without bubblewrap no pool can be kept, and the gauge has no series to show.
      expect(await scrape()).not.toContain('skillet_warm_sandboxes{');
      return;
    }
    expect(seriesValue(await scrape(), 'skillet_warm_sandboxes{kind="script"}')).toBe(0);
    server.app.warmSandboxes();
    await vi.waitFor(async () => expect(seriesValue(await scrape(), 'skillet_warm_sandboxes{kind="script"}')).toBe(1), {
      timeout: 10_000,
    });
  } finally {
    await server.close();
  }
});
