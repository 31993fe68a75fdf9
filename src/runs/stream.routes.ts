import type { AppContext } from '../context.js';
import { InvalidInput, MethodNotAllowed } from '../errors.js';
import { clientAddress, type FrontRoute, headerValues, pathOf, sendError } from '../http/front-routes.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../http/request-id.js';
import { limitAnonymousRequest } from '../identity/request-limits.js';
import { requireResumePoint, serveEventStream } from './stream.js';
import { verifyStreamSignature } from './stream-url.js';

const STREAM_PATH = /^\/executions\/([^/?]+)\/stream(?:\?|$)/;
const MAX_EXECUTION_ID = 100;
const QUERY_LIMITS = { ts: 32, sig: 128, lastSeq: 16 } as const;

interface StreamRequest {
  executionId: string;
  ts?: string;
  sig?: string;
  lastSeq?: string;
}

/** The path's execution id and the query, held to the same limits a route schema would set. */
function parseStreamRequest(encodedId: string, url: string): StreamRequest {
  let executionId: string;
  try {
    executionId = decodeURIComponent(encodedId);
  } catch {
    throw new InvalidInput('The execution id in the path is not validly encoded');
  }
  if (executionId.length > MAX_EXECUTION_ID) throw new InvalidInput('The execution id in the path is too long');
  const query = new URLSearchParams(url.slice(url.indexOf('?') + 1 || url.length));
  const parsed: StreamRequest = { executionId };
  for (const [name, maxLength] of Object.entries(QUERY_LIMITS) as [keyof typeof QUERY_LIMITS, number][]) {
    const values = query.getAll(name);
    if (values.length > 1) throw new InvalidInput(`${name} may be given only once`);
    const value = values[0];
    if (value !== undefined && value.length > maxLength) throw new InvalidInput(`${name} is too long`);
    if (value !== undefined) parsed[name] = value;
  }
  return parsed;
}

/** Where to resume: `lastSeq`, else a reconnecting browser's Last-Event-ID, else the start. */
function resumeAfter(lastSeq: string | undefined, lastEventId: string | undefined): number {
  const given = lastSeq ?? lastEventId;
  if (given === undefined || given === '') return 0;
  if (!/^\d{1,12}$/.test(given)) throw new InvalidInput('lastSeq must be a non-negative integer');
  return Number(given);
}

/**
 * GET /executions/:executionId/stream, the signed stream URL. It carries no credential but
 * its signature, which is checked before anything about the execution is looked at. The
 * request passes the gates every other request does, in the same order: the rate limit
 * (per client address), input limits, then the signature.
 */
export function streamRoute(ctx: AppContext): FrontRoute {
  return (request, response) => {
    const url = request.url ?? '';
    // Every method: the router does not know this address, so it would call any other one missing.
    const match = STREAM_PATH.exec(url);
    if (!match) return false;
    const requestId = requestIdOf(request);
    // Every answer carries the request id, handed to writeHead with the other headers rather
    // than set on the response: a header set on its own is kept (in an array of its own) for
    // as long as the response is open, and a stream is open for hours, thousands at a time.
    let headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestId };
    const open = async () => {
      const limit = await limitAnonymousRequest(ctx, clientAddress(request, ctx.config.trustProxy));
      headers = { ...headers, ...limit.headers };
      if (limit.refusal) throw limit.refusal;
      if (request.method !== 'GET') {
        throw new MethodNotAllowed(
          'This address can only be read: it is the stream of a run’s events. The Allow header of this answer lists the methods it takes.',
          ['GET'],
        );
      }
      const { executionId, ts, sig, lastSeq } = parseStreamRequest(match[1] as string, url);
      verifyStreamSignature(ctx, executionId, ts, sig);
      const after = resumeAfter(lastSeq, headerValues(request, 'last-event-id')[0]);
      await requireResumePoint(ctx.db, executionId, after);
      ctx.log.info({ requestId, method: 'GET', path: pathOf(url), after }, 'event stream opened');
      await serveEventStream(ctx, response, headers, executionId, after);
    };
    open().catch((error: unknown) => sendError(ctx.log, request, response, error, requestId, headers));
    return true;
  };
}
