import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Unauthorized } from '../errors.js';
import type { AppMetrics } from './metrics.js';
import type { Readiness } from './readiness.js';

export interface OpsRouteParts {
  readiness(): Promise<Readiness>;
  metrics: AppMetrics | undefined;
  /** METRICS_TOKEN: /metrics is served only when it is set. */
  metricsToken: string | undefined;
}

/**
 * Probes for orchestrators and load balancers: public (they hold no credential), never
 * rate limited (a probe refused for its own rate would take a healthy node out), and left
 * out of the OpenAPI document, which describes the API clients use.
 */
const PROBE = { config: { auth: 'public', rateLimit: 'unlimited' }, schema: { hide: true } } as const;

/** Compared as digests, so neither the length nor the content leaks through timing. */
function tokenMatches(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export function opsRoutes(parts: OpsRouteParts) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', PROBE, async () => ({ status: 'ok' }));

    app.get('/readyz', PROBE, async (_request, reply) => {
      const { ready, checks } = await parts.readiness();
      reply.header('cache-control', 'no-store');
      return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unready', checks });
    });

    const { metrics, metricsToken } = parts;
    if (!metrics || metricsToken === undefined) return;
    // Counted under the REST limit like any anonymous request: it slows down guessing the token.
    const config = { auth: 'public', authChallenge: 'Bearer realm="metrics"' } as const;
    app.get('/metrics', { config, schema: { hide: true } }, async (request, reply) => {
      const header = request.headers.authorization ?? '';
      const given = /^Bearer (\S+)$/i.exec(header)?.[1];
      if (given === undefined || !tokenMatches(given, metricsToken)) {
        throw new Unauthorized('The metrics need the bearer token set in METRICS_TOKEN');
      }
      return reply.header('content-type', metrics.contentType).send(await metrics.exposition());
    });
  };
}
