/** The two resource servers a token may be for (RFC 8707): MCP and the REST API. */
export type OAuthResource = 'mcp' | 'api';

export const OAUTH_SCOPES = ['read', 'write', 'admin'] as const;

export function resourceUrl(publicUrl: string, resource: OAuthResource): string {
  return resource === 'mcp' ? `${publicUrl}/mcp` : `${publicUrl}/api/v1`;
}

export function resourceOfUrl(publicUrl: string, url: string): OAuthResource | null {
  if (url === resourceUrl(publicUrl, 'mcp')) return 'mcp';
  if (url === resourceUrl(publicUrl, 'api')) return 'api';
  return null;
}

/** Where a resource's RFC 9728 metadata is served: the REST API's at the root, MCP's beside its path. */
export function protectedResourceMetadataUrl(publicUrl: string, resource: OAuthResource): string {
  return `${publicUrl}/.well-known/oauth-protected-resource${resource === 'mcp' ? '/mcp' : ''}`;
}

/** RFC 9728 metadata for one resource: where its tokens come from and what they may hold. */
export function protectedResourceMetadata(publicUrl: string, resource: OAuthResource) {
  return {
    resource: resourceUrl(publicUrl, resource),
    authorization_servers: [publicUrl],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: resource === 'mcp' ? 'Skillet MCP' : 'Skillet API',
  };
}
