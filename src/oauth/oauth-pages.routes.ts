import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { sendPage } from '../http/pages.js';
import { resourceOfUrl, resourceUrl } from '../identity/oauth-resources.js';
import { checkPassword } from '../identity/users.js';
import { requireWorkspaceChoice, workspaceChoices } from './consent.js';
import { saveConsentedGrant } from './consent-grant.js';
import { OAUTH_PAGE_HEADERS, oauthConsentPage, oauthProblemPage, oauthSignInPage } from './oauth-pages.js';
import { ConsentForm, InteractionParams, SignInForm } from './oauth-pages.schemas.js';

const sendOAuthPage = (reply: FastifyReply, status: number, page: string): FastifyReply =>
  sendPage(reply, status, page, OAUTH_PAGE_HEADERS);

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/**
 * Sign-in and consent for the OAuth authorization server, through oidc-provider's
 * interaction flow: it sends the browser here with a cookie naming the interaction, and
 * takes it back with the result (who signed in; which grant they allowed).
 */
export function oauthPageRoutes(ctx: AppContext, provider: Provider): FastifyPluginAsyncTypebox {
  /** The interaction the browser's cookie names, if it is the one in the URL and still open. */
  async function interaction(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<Details | null> {
    try {
      const details = await provider.interactionDetails(request.raw, reply.raw);
      return details.uid === uid ? details : null;
    } catch {
      // oidc-provider throws SessionNotFound for a missing, expired or forged cookie.
      return null;
    }
  }

  async function clientName(details: Details): Promise<string> {
    const clientId = String(details.params.client_id ?? '');
    const client = await provider.Client.find(clientId);
    return client?.clientName ?? clientId;
  }

  /**
   * Where the browser goes after the consent page: the request's redirect_uri, which
   * oidc-provider has matched to the client's registered ones (or its only one, when the
   * request named none).
   */
  async function redirectHost(details: Details): Promise<string> {
    const client = await provider.Client.find(String(details.params.client_id ?? ''));
    const uri = typeof details.params.redirect_uri === 'string' ? details.params.redirect_uri : client?.redirectUris?.[0];
    return URL.canParse(uri ?? '') ? new URL(uri ?? '').host || String(uri) : 'an address the app did not name';
  }

  /** The consent page for an interaction: who asks, for what, on which resource, and where to act. */
  async function consentPage(details: Details, accountId: string, message?: string): Promise<string> {
    const resource = String(details.params.resource ?? resourceUrl(ctx.config.publicUrl, 'api'));
    return oauthConsentPage({
      uid: details.uid,
      clientName: await clientName(details),
      scopes: String(details.params.scope ?? '')
        .split(' ')
        .filter(Boolean),
      resource: resourceOfUrl(ctx.config.publicUrl, resource) === 'mcp' ? 'Skillet over MCP' : 'the Skillet API',
      redirectHost: await redirectHost(details),
      workspaces: await workspaceChoices(ctx, accountId),
      ...(message ? { message } : {}),
    });
  }

  async function finish(request: FastifyRequest, reply: FastifyReply, result: Parameters<Provider['interactionResult']>[2]) {
    const to = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: true });
    return reply.redirect(to, 303);
  }

  const gone = (reply: FastifyReply) =>
    sendOAuthPage(reply, 400, oauthProblemPage('This sign-in has expired or was opened elsewhere.'));

  return async (app) => {
    const config = { auth: 'public' as const };

    app.get('/oauth/interaction/:uid', { config, schema: { hide: true, params: InteractionParams } }, async (request, reply) => {
      const details = await interaction(request, reply, request.params.uid);
      if (!details) return gone(reply);
      const name = await clientName(details);
      const accountId = details.session?.accountId;
      if (details.prompt.name !== 'consent' || !accountId) {
        return sendOAuthPage(reply, 200, oauthSignInPage({ uid: details.uid, clientName: name }));
      }
      return sendOAuthPage(reply, 200, await consentPage(details, accountId));
    });

    app.post(
      '/oauth/interaction/:uid/login',
      { config, schema: { hide: true, params: InteractionParams, body: SignInForm } },
      async (request, reply) => {
        const details = await interaction(request, reply, request.params.uid);
        if (!details) return gone(reply);
        try {
          const user = await checkPassword(ctx, request.body.email, request.body.password);
          return await finish(request, reply, { login: { accountId: user.id } });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          const page = oauthSignInPage({
            uid: details.uid,
            clientName: await clientName(details),
            email: request.body.email,
            message: error.message,
          });
          return sendOAuthPage(reply, error.status, page);
        }
      },
    );

    app.post(
      '/oauth/interaction/:uid/confirm',
      { config, schema: { hide: true, params: InteractionParams, body: ConsentForm } },
      async (request, reply) => {
        const details = await interaction(request, reply, request.params.uid);
        const accountId = details?.session?.accountId;
        if (!details || !accountId || details.prompt.name !== 'consent') return gone(reply);
        if (request.body.decision === 'deny') {
          return finish(request, reply, { error: 'access_denied', error_description: 'The person denied the request' });
        }
        try {
          await requireWorkspaceChoice(ctx, accountId, request.body.workspace);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return sendOAuthPage(reply, error.status, await consentPage(details, accountId, error.message));
        }
        const grantId = await saveConsentedGrant(ctx, provider, details, { accountId, workspaceId: request.body.workspace });
        return finish(request, reply, { consent: { grantId } });
      },
    );
  };
}
