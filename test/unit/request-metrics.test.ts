import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestMetrics } from '../../src/ops/request-metrics.js';

const LABELS = ['method', 'route', 'status_class'] as const;

/** The same metrics as prom-client wrote them before RequestMetrics counted them itself. */
function promClientText(observations: [string, string, number, number][]): Promise<string> {
  const registry = new Registry();
  const count = new Counter({
    name: 'skillet_http_requests_total',
    help: 'HTTP requests answered, by route pattern and status class',
    labelNames: LABELS,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'skillet_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (an event stream: how long it stayed open)',
    labelNames: LABELS,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 600],
    registers: [registry],
  });
  for (const [method, route, status, seconds] of observations) {
    const labels = { method, route, status_class: `${Math.floor(status / 100)}xx` };
    count.inc(labels);
    latency.observe(labels, seconds);
  }
  return registry.metrics();
}

describe('request metrics', () => {
  it('write the very lines prom-client wrote for the same answers', async () => {
    const observations: [string, string, number, number][] = [
      ['GET', '/api/v1/me', 200, 0.0004],
      ['GET', '/api/v1/me', 201, 0.005],
      ['GET', '/api/v1/me', 404, 0.7],
      ['POST', '/api/v1/executions/:id/messages', 429, 12],
      ['GET', '/api/v1/executions/:id/stream', 200, 900],
      ['GET', 'unmatched', 404, 0.01],
      ['GET', '/odd/"quoted"\\path\nline', 500, 0.02],
    ];
    const ours = new RequestMetrics();
    for (const observation of observations) ours.observe(...observation);
    expect(ours.render()).toBe(await promClientText(observations));
  });

  it('write only the headers before the first answer', async () => {
    expect(new RequestMetrics().render()).toBe(await promClientText([]));
  });
});
