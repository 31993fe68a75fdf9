import { credentialFields, html, notice, pageLayout } from '../http/html.js';
import type { WorkspaceView } from '../identity/workspaces.js';
import type { ActivationDetails } from './activation.js';

export function signInPage(options: { code?: string; email?: string; message?: string }): string {
  return pageLayout(
    'Activate a device',
    html`<h1>Activate a device</h1>
<p>Sign in to review the device that is asking for access.</p>
${notice(options.message)}
<form method="post" action="/activate/review">
<label for="code">Code shown on your device</label>
<input id="code" name="code" value="${options.code ?? ''}" placeholder="XXXX-XXXX" autocomplete="off" autocapitalize="characters" required>
${credentialFields(options.email)}
<button class="primary" type="submit">Continue</button>
</form>`,
  );
}

/** Beside every fact the device chose itself, so none of them reads as checked by the server. */
const REPORTED = html`<span class="reported">(reported by the device)</span>`;

function timeLeft(expiresAt: string, now: Date): string {
  const seconds = Math.max(0, Math.floor((Date.parse(expiresAt) - now.getTime()) / 1000));
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes} min ${seconds % 60} s` : `${seconds} s`;
}

export function reviewPage(options: {
  details: ActivationDetails;
  ticket: string;
  workspaces: WorkspaceView[];
  now: Date;
}): string {
  const { details } = options;
  const choices = options.workspaces.map(
    (workspace) =>
      html`<option value="${workspace.id}"${workspace.personal ? html` selected` : html``}>${workspace.personal ? 'Personal' : (workspace.name ?? workspace.id)}</option>`,
  );
  return pageLayout(
    'Approve this device?',
    html`<h1>Approve this device?</h1>
<p>Check that this code is the one on your device:</p>
<p class="code">${details.user_code}</p>
<p>What the device says about itself can be anything it likes: approve only a device you are setting up yourself.</p>
<dl class="facts">
<dt>Client ${REPORTED}</dt><dd>${details.client_label}</dd>
<dt>User agent ${REPORTED}</dt><dd>${details.client_ua || 'not given'}</dd>
<dt>IP address</dt><dd>${details.client_ip}</dd>
<dt>Time left</dt><dd>${timeLeft(details.expires_at, options.now)}</dd>
</dl>
<form method="post" action="/activate/decision">
<input type="hidden" name="ticket" value="${options.ticket}">
<label for="workspace">Workspace the key will act in</label>
<select id="workspace" name="workspace">${choices}</select>
<div class="actions">
<button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button class="secondary" type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  );
}

export function outcomePage(title: string, message: string): string {
  return pageLayout(title, html`<h1>${title}</h1><p>${message}</p>`);
}
