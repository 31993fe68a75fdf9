import type { FastifyRequest } from 'fastify';
import { refusedBearerToken } from './credentials.js';
import { protectedResourceMetadataUrl } from './oauth-resources.js';

/** A value as an RFC 7230 quoted-string. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
}

/**
 * The `WWW-Authenticate` of a 401 (RFC 7235 asks one of every 401): the route's own when
 * its config names one (MCP, the metrics), otherwise RFC 6750's Bearer challenge pointing at
 * the resource's RFC 9728 metadata, so an OAuth client can find where tokens come from.
 * `error="invalid_token"` is there only when a bearer token was sent and refused; a request
 * with no credential, another scheme, or a bad API key or auth token gets the challenge
 * without an error (those are not bearer tokens, and RFC 6750 section 3.1 says so).
 */
export function authChallenge(request: FastifyRequest, error: Error, publicUrl: string): string {
  const config = request.routeOptions.config;
  if (config?.authChallenge) return config.authChallenge;
  const metadata = protectedResourceMetadataUrl(publicUrl, config?.oauthResource ?? 'api');
  const refused =
    error === request.credentialError && refusedBearerToken(request)
      ? ` error="invalid_token", error_description=${quoted(error.message)},`
      : '';
  return `Bearer realm="skillet",${refused} resource_metadata=${quoted(metadata)}`;
}
