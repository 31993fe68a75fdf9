/** Markup that is already safe; only `html` and `raw` make one. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

type Interpolation = SafeHtml | string | number | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** A template tag that escapes every interpolated value unless it is SafeHtml already. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Markup the server made itself and trusts as it is, such as its own guide rendered from Markdown. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** Where the pages' stylesheet (page-style.ts) is served. */
export const PAGE_STYLESHEET = '/activate/style.css';

/**
 * The frame every HTML page of ours shares: the app's header band and stylesheet around a
 * body; `head` adds to the head (a refresh that hands the browser on).
 */
export function pageLayout(title: string, body: SafeHtml, head: SafeHtml = html``): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Skillet</title>
<link rel="stylesheet" href="${PAGE_STYLESHEET}">
${head}</head>
<body><header class="top"><a class="brand" href="/app/">Skillet</a></header>
<main>${body}</main></body>
</html>`.value;
}

/** A message shown above a page's form (a failed sign-in, an expired request), read out by screen readers. */
export function notice(message: string | undefined): SafeHtml {
  return message ? html`<p class="notice" role="alert">${message}</p>` : html``;
}

/** The email and password fields every sign-in form of ours asks for. */
export function credentialFields(email: string | undefined): SafeHtml {
  return html`<label for="email">Email</label>
<input id="email" name="email" type="email" value="${email ?? ''}" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>`;
}
