import { expect } from 'vitest';

/**
 * A browser as far as the sign-in and consent pages need one: it follows no redirect by
 * itself, keeps the cookies it is given (by name; the pages' paths all lie under the
 * server's), and reads forms out of the HTML.
 */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly base: string) {}

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(new URL(url, this.base), {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Follows redirects on this server; stops at a page (2xx/4xx) or at a redirect elsewhere. */
  async follow(response: Response): Promise<Response> {
    let current = response;
    while (current.status >= 300 && current.status < 400) {
      const location = new URL(current.headers.get('location') ?? '', this.base);
      if (location.origin !== new URL(this.base).origin) return current;
      current = await this.request(location.href);
    }
    return current;
  }
}

export interface Form {
  action: string;
  fields: Record<string, string>;
  html: string;
}

/** The page's one form: where it posts and the values of its hidden inputs. */
export async function formOf(response: Response): Promise<Form> {
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await response.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  expect(action, html).toBeDefined();
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] ?? ''] = match[2] ?? '';
  }
  return { action: action ?? '', fields, html };
}

/** The options of the page's `Workspace` chooser, value to label. */
export function workspaceOptions(html: string): Map<string, string> {
  const select =
    /<label for="workspace">Workspace<\/label>\s*<select id="workspace" name="workspace">(.*?)<\/select>/s.exec(html)?.[1] ?? '';
  return new Map([...select.matchAll(/<option value="([^"]+)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
}
