import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, Unauthorized } from '../errors.js';
import type { Caller } from '../identity/callers.js';
import { CREDENTIAL_STRATEGIES, UNCLAIMED_CREDENTIAL_HEADERS } from '../identity/credential-strategies.js';
import { inWorkspace } from '../identity/workspaces.js';

type CredentialReader = Pick<AppContext, 'db' | 'clock' | 'credentials'>;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value.join(',') : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** Who the headers say is calling: the first header a credential strategy reads decides. */
async function callerFromHeaders(ctx: CredentialReader, request: FastifyRequest): Promise<Caller> {
  for (const strategy of CREDENTIAL_STRATEGIES) {
    const secret = header(request, strategy.header);
    if (secret === undefined) continue;
    const caller = await strategy.resolve(ctx, secret);
    if (!caller) throw new Unauthorized(strategy.invalidMessage);
    return caller;
  }
  for (const unclaimed of UNCLAIMED_CREDENTIAL_HEADERS) {
    if (header(request, unclaimed.header) !== undefined) throw new Unauthorized(unclaimed.invalidMessage);
  }
  throw new Unauthorized('Missing auth token');
}

/**
 * Fills request.caller (or request.credentialError) from the headers. Never throws for a
 * bad credential: whether that matters depends on the route, and the request must still be
 * counted by the rate limiter first.
 */
export async function resolveCaller(ctx: CredentialReader, request: FastifyRequest): Promise<void> {
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
