import type { TestServer } from './server.js';

/** Submits a form the way a browser does, and reads the page that comes back. */
export async function postForm(server: TestServer, path: string, fields: Record<string, string>) {
  const response = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

/** The signed ticket a review page carries in its decision form. */
export function ticketIn(html: string): string {
  const match = /name="ticket" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('no ticket on the page');
  return match[1];
}
