import type Provider from 'oidc-provider';
import type { AppContext } from '../context.js';
import { findGrantWorkspace } from '../identity/oauth-records.store.js';
import { OAUTH_SCOPES, resourceUrl } from '../identity/oauth-resources.js';
import { bindGrantToWorkspace } from './consent.js';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;
type Grant = InstanceType<Provider['Grant']>;

function words(value: unknown): string[] {
  return typeof value === 'string' ? value.split(' ').filter(Boolean) : [];
}

/** Adds what oidc-provider found missing from the grant for this request. */
function addMissingScopes(grant: Grant, details: Details): void {
  const missing = details.prompt.details;
  if (Array.isArray(missing.missingOIDCScope)) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  const resourceScopes = missing.missingResourceScopes;
  if (resourceScopes && typeof resourceScopes === 'object') {
    for (const [indicator, scopes] of Object.entries(resourceScopes)) {
      if (Array.isArray(scopes)) grant.addResourceScope(indicator, scopes.join(' '));
    }
  }
}

/**
 * Adds everything the request asks for, as oidc-provider would find it missing from an empty
 * grant: what it found missing was reckoned against the grant being replaced, which may
 * already have held all of it.
 */
function addRequestedScopes(grant: Grant, details: Details, publicUrl: string): void {
  const requested = words(details.params.scope);
  const resource = typeof details.params.resource === 'string' ? details.params.resource : resourceUrl(publicUrl, 'api');
  grant.addOIDCScope(requested.join(' '));
  const resourceScopes = requested.filter((scope) => (OAUTH_SCOPES as readonly string[]).includes(scope));
  grant.addResourceScope(resource, resourceScopes.join(' '));
}

/**
 * Saves what a person allowed, and returns the grant it is in. A grant acts in one workspace
 * for its whole life, and so do the tokens issued under it and their refreshes: the grant this
 * browser already holds for the client is added to only when the person chose its workspace
 * again. Choosing another starts a grant of its own, so a later consent never moves tokens
 * already issued (issue 25, item 8).
 */
export async function saveConsentedGrant(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config'>,
  provider: Provider,
  details: Details,
  consent: { accountId: string; workspaceId: string },
): Promise<string> {
  const clientId = String(details.params.client_id);
  const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  const binding = existing?.jti ? await findGrantWorkspace(ctx.db, existing.jti) : undefined;
  const reusable = existing && binding?.workspace_id === consent.workspaceId && binding.user_id === consent.accountId;
  const grant = reusable ? existing : new provider.Grant({ accountId: consent.accountId, clientId });
  addMissingScopes(grant, details);
  if (!reusable) addRequestedScopes(grant, details, ctx.config.publicUrl);
  const grantId = await grant.save();
  await bindGrantToWorkspace(ctx, { userId: consent.accountId, grantId, workspaceId: consent.workspaceId });
  return grantId;
}
