import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MethodNotAllowed, NotFound } from '../errors.js';
import { html, pageLayout } from './html.js';
import { sendPage } from './pages.js';

/** The methods looked for at an address a request's method did not find. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** What each method does to an address, in words: people read the refusal, not the method. */
const DOINGS: Record<string, string> = {
  GET: 'read',
  POST: 'sent to',
  PUT: 'replaced',
  PATCH: 'changed',
  DELETE: 'deleted',
};

/** `a`, `a or b`, `a, b or c`. */
function either(words: string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** The methods the request's address is served for, other than its own. */
function allowedAt(app: FastifyInstance, request: FastifyRequest): string[] {
  return METHODS.filter((method) => method !== request.method && app.findRoute({ method, url: request.url }) !== null);
}

/**
 * A browser opening a page (its Accept puts HTML first) gets a page, not JSON; the API, the
 * MCP transport and programs (curl's Accept is anything) get the JSON envelope.
 */
function wantsPage(request: FastifyRequest): boolean {
  const path = request.url;
  if (path.startsWith('/api/') || path === '/mcp' || path.startsWith('/mcp/')) return false;
  return /^\s*text\/html\b/i.test(request.headers.accept ?? '');
}

function page(heading: string, text: string): string {
  return pageLayout(heading, html`<h1>${heading}</h1><p>${text}</p><p><a href="/app/">Open Skillet</a></p>`);
}

/**
 * Requests the router has no route for. An address served for other methods (replacing the
 * list of runs, say) is a 405 naming them in Allow; only an address served for none is a 404.
 */
export function installUnrouted(app: FastifyInstance): void {
  app.setNotFoundHandler(async (request, reply) => {
    const allowed = allowedAt(app, request);
    const asPage = wantsPage(request);
    if (allowed.length > 0) {
      if (asPage) {
        reply.header('allow', allowed.join(', '));
        return sendPage(
          reply,
          405,
          page('This page cannot do that', 'It can only be opened, not sent a form. Go back and try again.'),
        );
      }
      const can = either([...new Set(allowed.flatMap((method) => DOINGS[method] ?? []))]);
      const tried = DOINGS[request.method] ?? 'used that way';
      throw new MethodNotAllowed(
        `This address cannot be ${tried}; it can only be ${can}. The Allow header of this answer lists the methods it takes.`,
        allowed,
      );
    }
    if (asPage) return sendPage(reply, 404, page('There is nothing here', 'Check the link, or start again from Skillet.'));
    // People see this message: it says what happened without quoting the method and path back.
    throw new NotFound('There is nothing at this address. Check the link, or the address the client was configured with.');
  });
}
