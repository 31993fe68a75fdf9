import { credentialFields, html, notice, pageLayout } from '../http/html.js';
import { scopeItems } from '../oauth/oauth-pages.js';
import type { ConnectRequestView } from './agent-connect.js';

/** The request id goes into the form's path: only ids of the shape we issue, so nothing odd lands in a URL. */
function actionPath(requestId: string, step: 'review' | 'decision'): string {
  return `/agents/connect/${encodeURIComponent(requestId)}/${step}`;
}

export function connectSignInPage(options: { requestId: string; email?: string; message?: string }): string {
  return pageLayout(
    'Narrow an API key',
    html`<h1>Narrow an API key</h1>
<p>Sign in to review what one of your API keys is asking for.</p>
${notice(options.message)}
<form method="post" action="${actionPath(options.requestId, 'review')}">
${credentialFields(options.email)}
<button class="primary" type="submit">Sign in</button>
</form>`,
  );
}

export function connectReviewPage(options: { request: ConnectRequestView; ticket: string }): string {
  const { request } = options;
  const scopes = scopeItems(request.scopes);
  return pageLayout(
    'Narrow this key?',
    html`<h1>Narrow this key?</h1>
<p>Your API key <strong>${request.keyLabel}</strong> asks to be limited to:</p>
<ul class="scopes">${scopes}</ul>
<p>Once approved, the key can do nothing beyond these scopes. Deny leaves it as it is.</p>
<dl class="facts">
<dt>Agent <span class="reported">(reported by the agent)</span></dt><dd>${request.label ?? 'not given'}</dd>
<dt>Expires</dt><dd>${request.expiresAt}</dd>
</dl>
<form method="post" action="${actionPath(request.requestId, 'decision')}">
<input type="hidden" name="ticket" value="${options.ticket}">
<div class="actions">
<button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button class="secondary" type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  );
}

export function connectOutcomePage(title: string, message: string): string {
  return pageLayout(title, html`<h1>${title}</h1><p>${message}</p>`);
}
