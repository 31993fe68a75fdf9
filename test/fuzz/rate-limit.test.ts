import fc from 'fast-check';
import { expect } from 'vitest';
import { createKey, session, signUp } from '../helpers/factories.js';
import { withApp } from '../helpers/fixtures.js';
import { requestsFor } from './openapi-arbitraries.js';
import { answerChecker, type OpenApiDocument, operationsOf } from './openapi-document.js';
import { send } from './send.js';
import { runs } from './settings.js';

/**
 * The other fuzz file raises every limit out of reach; this one keeps them low (and the
 * clock still, so a window never resets) and fuzzes all routes at once, so that most
 * answers are 429s, from whichever limiter a route counts against. Each must be in the
 * rate-limit envelope with a Retry-After, or, where a run is in progress, the
 * execution-running one: both as the document's 429 says.
 */
const it = withApp({
  RATE_LIMIT_REST_PER_MINUTE: '15',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '3',
  RATE_LIMIT_POLL_BURST: '2',
  // A server without mail answers a reset request 503 (it cannot send one), which is not what
  // this property is about; as in api.test.ts, mail goes nowhere and its sending fails later.
  SMTP_URL: 'smtp://127.0.0.1:9',
})
  .extend('document', { scope: 'file' }, async ({ api }) => (await api.get<OpenApiDocument>('/openapi.json')).body)
  .extend('person', { scope: 'file' }, async ({ api }) => {
    const user = await signUp(api);
    return { user, key: (await createKey(api, user)).key };
  });

it('answers every request over a limit in the rate-limit envelope, with Retry-After', async ({ server, document, person }) => {
  const check = answerChecker(document);
  // Streams are left out: this file's server has no socket, and their limit is the REST one checked here.
  const operations = operationsOf(document).filter((operation) => !operation.streams);
  const credentials = { 'by API key': { 'x-api-key': person.key }, 'by session': session(person.user), nobody: {} };
  const aims = { ids: [person.user.user.personalWorkspaceId], words: ['empty'], wildness: 0 };
  const requests = fc
    .constantFrom(...operations)
    .chain((operation) => requestsFor(document, operation, aims, credentials).map((request) => ({ operation, request })));
  let limited = 0;
  await fc.assert(
    fc.asyncProperty(requests, async ({ operation, request }) => {
      const answer = await send(server, operation, request);
      expect(answer.status, answer.text).toBeLessThan(500);
      expect(check(operation, answer.status, answer.contentType, answer.body), answer.text).toMatchObject({ ok: true });
      const error = (answer.body as { error?: { type?: string } }).error;
      if (answer.status !== 429 || error?.type !== 'rate_limit_error') return;
      limited++;
      expect(Number(answer.text.match(/^retry-after: (\d+)$/m)?.[1])).toBeGreaterThanOrEqual(1);
    }),
    runs(120),
  );
  expect(limited).toBeGreaterThan(0);
});
