import type { FastifyReply } from 'fastify';

/**
 * The headers of every HTML page we serve: nothing loads but styles, nothing frames the
 * page, nothing is cached or leaks a referrer. `formAction` names where a form's answer may
 * go; null leaves it open, for a form whose answer redirects on to a client's own URL
 * (browsers that apply form-action to redirects would block it).
 */
export function pageHeaders(options: { styles: "'self'" | "'unsafe-inline'"; formAction: string | null }) {
  const formAction = options.formAction === null ? '' : ` form-action ${options.formAction};`;
  return {
    'content-security-policy': `default-src 'none'; style-src ${options.styles};${formAction} frame-ancestors 'none'`,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

/** The activation and scoped-consent pages: our stylesheet, forms posting back here. */
const OWN_PAGE_HEADERS = pageHeaders({ styles: "'self'", formAction: "'self'" });

export function sendPage(reply: FastifyReply, status: number, page: string, headers = OWN_PAGE_HEADERS): FastifyReply {
  return reply.status(status).headers(headers).type('text/html; charset=utf-8').send(page);
}
