import { randomUUID } from 'node:crypto';
import type { FuzzRequest } from './openapi-arbitraries.js';
import { type answerChecker, type DocumentedOperation, UNROUTED } from './openapi-document.js';
import type { Answer } from './send.js';

/**
 * What must hold for every answer to A, whatever A sent:
 * - no 5xx;
 * - the status is documented for the route, and a JSON answer meets the documented schema
 *   for it: so a 4xx is in the route family's envelope (standard, artifact, rate limit,
 *   execution running) and a 2xx in its declared shape;
 * - a cross-site request riding A's cookie changes nothing;
 * - nothing of B's: never B's marker or secrets (A never sends those), and never one of
 *   B's ids unless A itself sent that id at some point (A may store any string as its own:
 *   a workspace named like one of B's ids comes back in A's list, and that is A's data).
 */

export interface Observer {
  check: ReturnType<typeof answerChecker>;
  /** Never in an answer to A. */
  secretsOfB: string[];
  /** In an answer to A only once A has sent them. */
  idsOfB: string[];
  /** B's ids that A's requests have carried so far. */
  sentByA: Set<string>;
}

function textOf(request: FuzzRequest): string {
  return `${request.url}\n${JSON.stringify(request.headers)}\n${request.payload ?? ''}`;
}

function failure(request: FuzzRequest, answer: Answer, why: string): Error {
  const sent = `${request.method} ${request.url} as ${request.credential}\nheaders: ${JSON.stringify(request.headers)}`;
  return new Error(`${why}\n${sent}\nbody: ${request.payload ?? '(none)'}\ngot ${answer.status}: ${answer.text.slice(0, 800)}`);
}

/** Notes which of B's ids the request carries, before it is sent. */
export function noteSent(observer: Observer, request: FuzzRequest): void {
  const sent = textOf(request);
  for (const id of observer.idsOfB) if (sent.includes(id)) observer.sentByA.add(id);
}

/**
 * The web app's session cookie without the header a cross-site page cannot add (the CSRF
 * rule, identity/session-cookie.ts): it may read, never change anything.
 */
export const CROSS_SITE = "A's cookie, as a cross-site page would send it";

export function verify(observer: Observer, operation: DocumentedOperation, request: FuzzRequest, answer: Answer): void {
  if (answer.status >= 500) throw failure(request, answer, 'a 5xx');
  if (request.credential === CROSS_SITE && request.method !== 'GET' && !operation.isPublic && answer.status < 400) {
    throw failure(request, answer, 'a state-changing request on the cookie alone was accepted');
  }
  const verdict = observer.check(request.routed ? operation : UNROUTED, answer.status, answer.contentType, answer.body);
  if (!verdict.ok) throw failure(request, answer, verdict.why);
  const leaked = [
    ...observer.secretsOfB.filter((secret) => answer.text.includes(secret)),
    ...observer.idsOfB.filter((id) => answer.text.includes(id) && !observer.sentByA.has(id)),
  ];
  if (leaked.length) throw failure(request, answer, `B's data in an answer to A: ${leaked.join(', ')}`);
}

/**
 * The same request with each of B's ids swapped for one nobody has, wherever it appears
 * (path, query, workspace header, body); null when the request names none of B's, or
 * carries an idempotency key (replaying one with another body is refused, made-up ids or not).
 */
export function withMadeUpIds(request: FuzzRequest, idsOfB: string[]): FuzzRequest | null {
  if (request.headers['idempotency-key'] !== undefined) return null;
  const strangers = new Map(idsOfB.map((id) => [id, randomUUID()]));
  const swap = (text: string) => {
    let swapped = text;
    for (const [id, stranger] of strangers) swapped = swapped.replaceAll(id, stranger);
    return swapped;
  };
  const workspace = request.headers['x-workspace-id'];
  const headers = workspace === undefined ? request.headers : { ...request.headers, 'x-workspace-id': swap(workspace) };
  const payload = request.payload === undefined ? undefined : swap(request.payload);
  const swapped = { ...request, url: swap(request.url), headers, ...(payload === undefined ? {} : { payload }) };
  return JSON.stringify(swapped) === JSON.stringify(request) ? null : swapped;
}

/** What an answer says, as far as a caller could tell one refusal from another. */
function outcome(answer: Answer): string {
  const body = answer.body as { error?: unknown } | undefined;
  const error = body && typeof body === 'object' ? body.error : undefined;
  const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : error;
  return `${answer.status} ${typeof code === 'string' && answer.status >= 400 ? code : ''}`.trim();
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

function isSuccess(answer: Answer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

function isRateLimited(answer: Answer): boolean {
  const error = (answer.body as { error?: { type?: unknown } } | undefined)?.error;
  return answer.status === 429 && typeof error === 'object' && error?.type === 'rate_limit_error';
}

/**
 * A refusal about what A itself has under way: its run still going, or as many thread turns
 * going at once as a person may have (the first chat of a pair, aimed at B's thread id, made
 * A a thread of its own whose turn may still hold A's claim when the second arrives).
 */
function ownWorkUnderWay(answer: Answer): boolean {
  return ['429 EXECUTION_RUNNING', '429 TOO_MANY_AT_ONCE'].includes(outcome(answer));
}

/**
 * B's resources must be indistinguishable from ones that do not exist: the answer to a
 * request naming B's id has the status and error code of the same request naming a made-up one.
 */
export function verifyNoOracle(request: FuzzRequest, aimedAtB: Answer, madeUp: FuzzRequest, answerToMadeUp: Answer): void {
  if (outcome(aimedAtB) === outcome(answerToMadeUp)) return;
  // A made-up id names nothing that could be busy: a conflict or a run in progress is about
  // A's own state, which the first request may have just changed (a rerun of A's run, with
  // one of B's ids only as its input text, starts it; the second rerun then finds it running).
  if (answerToMadeUp.status === 409 || ownWorkUnderWay(answerToMadeUp)) return;
  // The same the other way round: the first found A's run still going, and by the second it
  // had ended. A made-up id that succeeds named nothing (it was input text), so the busy
  // answer was about A's own run; a made-up id refused as unknown is not excused here.
  const busy = aimedAtB.status === 409 || ownWorkUnderWay(aimedAtB);
  if (busy && isSuccess(answerToMadeUp)) return;
  // Nor does a rate limit tell one id from another: it counts A's requests (activation codes
  // count each unknown one tried), and either request may be the one that tips it.
  if (isRateLimited(aimedAtB) || isRateLimited(answerToMadeUp)) return;
  // B's ids only in the query or the body, and the path the same both times: the path names
  // A's own resource, which the first request removed (a DELETE of A's webhook carrying one
  // of B's ids as an unknown query parameter), so the second finds it gone.
  if (pathOf(request.url) === pathOf(madeUp.url) && isSuccess(aimedAtB) && answerToMadeUp.status === 404) return;
  throw failure(
    request,
    aimedAtB,
    `B's id is told apart from a made-up one: ${outcome(aimedAtB)} for B's, ${outcome(answerToMadeUp)} for ${madeUp.url} (headers ${JSON.stringify(madeUp.headers)})`,
  );
}
