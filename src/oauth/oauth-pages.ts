import { credentialFields, html, notice, pageLayout, type SafeHtml } from '../http/html.js';
import { pageHeaders } from '../http/pages.js';
import { isOAuthScope, SCOPE_MEANINGS } from '../identity/oauth-scopes.js';
import type { WorkspaceChoice } from './consent.js';

/**
 * Headers of every OAuth page. No form-action in the CSP: the form's answer is a redirect
 * on to the client's redirect_uri, which browsers that apply form-action to redirects
 * would otherwise block.
 */
export const OAUTH_PAGE_HEADERS = pageHeaders({ styles: "'self'", formAction: null });

/**
 * Said wherever a client's name is shown. Every client registered itself (RFC 7591; Skillet
 * has no built-in clients), so its name is only what it chose to call itself.
 */
const UNVERIFIED = 'this app registered itself, and Skillet has not checked who made it or whether its name is true.';

/**
 * Who is asking and what for: the name the client gave, in the same paragraph as the warning
 * that nobody checked it, so the name is never read without it.
 */
function asker(clientName: string, asking: string): SafeHtml {
  return html`<p><strong>${clientName}</strong> ${asking}<br><strong>Unverified:</strong> ${UNVERIFIED}</p>`;
}

export function oauthSignInPage(options: { uid: string; clientName: string; email?: string; message?: string }): string {
  return pageLayout(
    'Sign in',
    html`<h1>Sign in</h1>
${asker(options.clientName, 'is asking to use your Skillet account. Sign in to continue.')}
${notice(options.message)}
<form method="post" action="/oauth/interaction/${options.uid}/login">
${credentialFields(options.email)}
<button class="primary" type="submit">Sign in</button>
</form>`,
  );
}

/** Each scope as a list item with its meaning; a scope we do not know is shown as it is. */
export function scopeItems(scopes: readonly string[]): SafeHtml[] {
  return scopes.map((scope) => html`<li><code>${scope}</code>: ${isOAuthScope(scope) ? SCOPE_MEANINGS[scope] : scope}</li>`);
}

export function oauthConsentPage(options: {
  uid: string;
  clientName: string;
  scopes: string[];
  /** What the token will reach, in words. */
  resource: string;
  /** The host the browser is sent back to, with the code or the refusal. */
  redirectHost: string;
  workspaces: WorkspaceChoice[];
  message?: string;
}): string {
  const scopes = scopeItems(options.scopes);
  const choices = options.workspaces.map(
    (workspace) =>
      html`<option value="${workspace.id}"${workspace.personal ? html` selected` : html``}>${workspace.label}</option>`,
  );
  return pageLayout(
    'Allow access?',
    html`<h1>Allow access?</h1>
${asker(options.clientName, `is asking to act for you on ${options.resource}.`)}
<p>Whichever you choose, you will be sent to <strong>${options.redirectHost}</strong> next. Allow only if you trust that address.</p>
${notice(options.message)}
<p>It asks for:</p>
<ul class="scopes">${scopes.length > 0 ? scopes : html`<li>no particular scope</li>`}</ul>
<form method="post" action="/oauth/interaction/${options.uid}/confirm">
<label for="workspace">Workspace</label>
<select id="workspace" name="workspace">${choices}</select>
<div class="actions">
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
<button class="secondary" type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  );
}

export function oauthProblemPage(message: string, forDevelopers?: string): string {
  const details = forDevelopers
    ? html`<details><summary>Details for the app’s makers</summary><p><code>${forDevelopers}</code></p></details>`
    : html``;
  return pageLayout(
    'Sign-in problem',
    html`<h1>This sign-in cannot go on</h1>${notice(message)}<p>Start again from the app that sent you here.</p>${details}`,
  );
}

/** What an OAuth error the provider shows a person means, in their words; the code is for the app's makers. */
const PROBLEM_WORDS: Record<string, string> = {
  invalid_redirect_uri:
    'The app asked to send you back to an address it did not register with this server, so the sign-in stopped here to keep your account safe.',
  invalid_client: 'This server does not know the app that sent you here.',
  unauthorized_client: 'The app that sent you here may not sign in this way.',
  access_denied: 'Access was not given to the app.',
  server_error: 'Something went wrong on this server. Try again in a minute.',
  temporarily_unavailable: 'This server is busy. Try again in a minute.',
};

export function oauthProblemWords(error: string): string {
  return PROBLEM_WORDS[error] ?? 'The app that sent you here asked for access in a way this server does not accept.';
}
