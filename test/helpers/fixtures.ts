import { test } from 'vitest';
import type { Env } from '../../src/config.js';
import { fakeStripe } from '../fakes/stripe.js';
import { client, injectClient } from './http.js';
import { buildTestApp, type ServerParts, startServer, type TestApp, type TestServer } from './server.js';

/** What a file changes from the test settings (`env`), and parts it swaps (a bus, a sandbox). */
export interface ServerSettings {
  env: Env;
  parts: ServerParts;
}

async function started({ env, parts }: ServerSettings, onCleanup: (cleanup: () => Promise<void>) => void): Promise<TestServer> {
  const server = await startServer(env, parts);
  onCleanup(() => server.close());
  return server;
}

/**
 * A test API whose `server` and `api` (a JSON client for it) are one started server shared
 * by every test in the file: started on first use, closed after the file's last test. The
 * settings are a fixture of their own because Vitest hands a fixture only the fixtures it
 * names.
 */
export function withServer(env: Env = {}, parts: ServerParts = {}) {
  return test
    .extend('serverSettings', { scope: 'file' }, { env, parts })
    .extend('server', { scope: 'file' }, ({ serverSettings }, { onCleanup }) => started(serverSettings, onCleanup))
    .extend('api', { scope: 'file' }, ({ server }) => client(server.url));
}

/** Like `withServer`, but each test gets a server of its own, for tests that spend a limit or move the clock. */
export function withServerPerTest(env: Env = {}, parts: ServerParts = {}) {
  return test
    .extend('serverSettings', { env, parts })
    .extend('server', ({ serverSettings }, { onCleanup }) => started(serverSettings, onCleanup))
    .extend('api', ({ server }) => client(server.url));
}

/**
 * The inject tier: `server` is the app without a socket and `api` sends through
 * `app.inject`, for tests of what Fastify answers (routes, validation, error envelopes)
 * that need no stream, no URL handed out and no raw bytes on the wire.
 */
export function withApp(env: Env = {}, parts: ServerParts = {}) {
  return test
    .extend('serverSettings', { scope: 'file' }, { env, parts })
    .extend('server', { scope: 'file' }, async ({ serverSettings }, { onCleanup }): Promise<TestApp> => {
      const built = await buildTestApp(serverSettings.env, serverSettings.parts);
      onCleanup(() => built.close());
      return built;
    })
    .extend('api', { scope: 'file' }, ({ server }) => injectClient(server.app));
}

/**
 * `withServer` billing through a Stripe stand-in started for the file (`stripe`); `envOf`
 * gives the server's settings from the stand-in's URL.
 */
export function withStripeServer(envOf: (stripeUrl: string) => Env) {
  return (
    withServer()
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
      .extend('stripe', { scope: 'file' }, async ({}, { onCleanup }) => {
        const stripe = await fakeStripe();
        onCleanup(() => stripe.close());
        return stripe;
      })
      .extend('serverSettings', { scope: 'file' }, ({ stripe }) => ({ env: envOf(stripe.url), parts: {} }))
  );
}
