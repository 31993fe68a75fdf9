import type { Clock } from '../clock.js';
import { Forbidden } from '../errors.js';
import { subscriptionModeOf } from '../identity/subscription-mode.js';
import type { Caller } from '../ports/callers.js';

/** What a person whose plan has no MCP is told: what it takes, and where to get it. */
export const MCP_NEEDS_BASED =
  'Connecting editors and agents through MCP is part of the Based subscription. Subscribe under Billing in the app, then connect again.';

/**
 * MCP is a basedmode feature (SPEC, Limits); a site license includes it. The standing is
 * the one the credential was read with, at most CREDENTIAL_CACHE_SECONDS old, so a new
 * subscription opens MCP within seconds and a lapsed one closes it as quickly.
 */
export function requireMcpAccess(ctx: { clock: Clock }, caller: Caller): void {
  const mode = subscriptionModeOf(caller.billing, ctx.clock.nowMs());
  if (mode !== 'basedmode' && mode !== 'sitelicense') throw new Forbidden(MCP_NEEDS_BASED);
}

/**
 * Whether a request's `Origin` may reach MCP. Browsers send one on cross-site requests, and
 * the MCP transport spec asks servers to refuse foreign ones (DNS rebinding, a page driving
 * a local server). Editors and other programs send none, which is fine; a browser page
 * served from PUBLIC_URL itself is ours. The comparison is of whole origins (scheme, host
 * and port), which the URL parser normalises.
 */
export function originAllowed(publicUrl: string, origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    return new URL(origin).origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}

const INTERFACE_NAME_MAX = 60;

/**
 * The `interface` an MCP run is recorded with: `mcp`, or `mcp-<client name>` from the name
 * the client declared, lower-cased, with anything but letters and digits as single dashes.
 */
export function mcpInterfaceOf(clientName: string | undefined): string {
  const slug = (clientName ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, INTERFACE_NAME_MAX)
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'mcp' : `mcp-${slug}`;
}
