import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, Unauthorized } from '../errors.js';
import { type Caller, callerFromApiKey, callerFromAuthToken, inWorkspace } from '../identity/callers.js';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value.join(',') : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** Who the headers say is calling. API key first, then auth token; bearer tokens wait for OAuth. */
async function callerFromHeaders(ctx: AppContext, request: FastifyRequest): Promise<Caller> {
  const apiKey = header(request, 'x-api-key');
  if (apiKey !== undefined) {
    const caller = await callerFromApiKey(ctx, apiKey);
    if (!caller) throw new Unauthorized('Invalid API key');
    return caller;
  }
  const authToken = header(request, 'x-auth-token');
  if (authToken !== undefined) {
    const caller = await callerFromAuthToken(ctx, authToken);
    if (!caller) throw new Unauthorized('Invalid auth token');
    return caller;
  }
  if (header(request, 'authorization') !== undefined) throw new Unauthorized('Invalid auth token');
  throw new Unauthorized('Missing auth token');
}

/**
 * Fills request.caller (or request.credentialError) from the headers. Never throws for a
 * bad credential: whether that matters depends on the route, and the request must still be
 * counted by the rate limiter first.
 */
export async function resolveCaller(ctx: AppContext, request: FastifyRequest): Promise<void> {
  try {
    const caller = await callerFromHeaders(ctx, request);
    request.caller = caller;
    const workspaceId = header(request, 'x-workspace-id');
    if (workspaceId !== undefined) request.caller = await inWorkspace(ctx, caller, workspaceId);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    request.credentialError = error;
  }
}

/** The caller of a route whose policy guaranteed one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Unauthorized('Missing auth token');
  return request.caller;
}
