import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { session } from '../helpers/factories.js';
import { withServer } from '../helpers/fixtures.js';
import { injectClient } from '../helpers/http.js';
import { type FuzzRequest, requestsFor } from './openapi-arbitraries.js';
import { answerChecker, type DocumentedOperation, type OpenApiDocument, operationsOf } from './openapi-document.js';
import { type Answer, send } from './send.js';
import { runs, servedDocument, UNLIMITED } from './settings.js';
import { twoWorkspaces } from './two-workspaces.js';

/**
 * Issue 18: requests for every route of /openapi.json, made up by fast-check from the
 * document itself, sent as A (by API key, by session token, or with nothing) and aimed at
 * B's real ids as often as at made-up ones. Whatever comes back must be documented for that
 * route and status (so a 4xx is in the route family's envelope, a 2xx in its declared
 * shape), never a 5xx, and never carry anything of B's.
 */

const { operations: listed } = await servedDocument();

/** Documented routes the fuzzer leaves alone, each with the reason; every other one must be exercised. */
const NOT_FUZZED: Record<string, string> = {};

/** Runs per route: enough to reach past validation into each handler, few enough for CI's budget. */
const RUNS_PER_ROUTE = 60;

const it = withServer(UNLIMITED)
  .extend('document', { scope: 'file' }, async ({ api }) => (await api.get<OpenApiDocument>('/openapi.json')).body)
  .extend('world', { scope: 'file' }, ({ server }) => twoWorkspaces(injectClient(server.app)))
  .extend('exercised', { scope: 'file' }, () => new Set<string>());

function describeFailure(request: FuzzRequest, answer: Answer, why: string): string {
  return `${why}\n${request.method} ${request.url} as ${request.credential}\nsent: ${request.payload ?? '(no body)'}\ngot ${answer.status}: ${answer.text.slice(0, 800)}`;
}

/**
 * A refusal may repeat an id the request itself carried ("No agent <id> in this workspace"):
 * that tells A nothing it did not send. The same id in a success, or anything of B's that A
 * did not send (a marker, an email, a key), is a leak.
 */
function echoed(secret: string, request: FuzzRequest, answer: Answer): boolean {
  const sent = `${request.url}\n${JSON.stringify(request.headers)}\n${request.payload ?? ''}`;
  return answer.status >= 400 && (sent.includes(secret) || sent.includes(encodeURIComponent(secret)));
}

/** What holds for every answer to A: documented for the route and status, not a 5xx, and nothing of B's in it. */
function verify(
  check: ReturnType<typeof answerChecker>,
  secretsOfB: string[],
  operation: DocumentedOperation,
  request: FuzzRequest,
  answer: Answer,
): void {
  if (answer.status >= 500) throw new Error(describeFailure(request, answer, 'a 5xx'));
  const verdict = check(operation, answer.status, answer.contentType, answer.body);
  if (!verdict.ok) throw new Error(describeFailure(request, answer, verdict.why));
  const leaked = secretsOfB.filter((secret) => answer.text.includes(secret) && !echoed(secret, request, answer));
  if (leaked.length) throw new Error(describeFailure(request, answer, `B's data in an answer to A: ${leaked.join(', ')}`));
}

describe('requests derived from /openapi.json', () => {
  for (const operation of listed) {
    const reason = NOT_FUZZED[operation.id];
    if (reason) continue;
    it(operation.id, async ({ server, api, document, world, exercised }) => {
      // A fresh session for each route: an earlier route's runs may have logged A out. A's key is
      // never among the ids aimed at, so it lives on (checked, so a lost key cannot hollow out the runs).
      const login = await api.post<{ token: string }>('/api/v1/auth/login', {
        body: { email: world.a.user.email, password: world.a.user.password },
      });
      const token = login.body.token;
      expect((await api.get('/api/v1/me', { headers: { 'x-api-key': world.a.apiKey } })).status).toBe(200);
      const credentials: Record<string, Record<string, string>> = {
        'A by API key': { 'x-api-key': world.a.apiKey },
        'A by session': session({ ...world.a.user, token }),
        'A by bearer key': { authorization: `Bearer ${world.a.apiKey}` },
        nobody: {},
        'a forged key': { 'x-api-key': `sklt_live_${'0'.repeat(40)}` },
      };
      const aims = { ids: [...world.b.ids, ...world.a.ids], words: world.words };
      const check = answerChecker(document);
      const current = operationsOf(document).find((one) => one.id === operation.id) ?? operation;
      await fc.assert(
        fc.asyncProperty(requestsFor(document, current, aims, credentials), async (request) => {
          verify(check, world.secretsOfB, current, request, await send(server, current, request));
        }),
        runs(RUNS_PER_ROUTE),
      );
      exercised.add(operation.id);
    });
  }

  it('exercised every documented route but the ones listed as not fuzzed', ({ document, exercised }) => {
    const documented = operationsOf(document).map((operation) => operation.id);
    const missed = documented.filter((id) => !exercised.has(id) && !NOT_FUZZED[id]);
    expect(missed).toEqual([]);
    expect(Object.keys(NOT_FUZZED).filter((id) => !documented.includes(id))).toEqual([]);
  });
});
