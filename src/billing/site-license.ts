import type { AppContext } from '../context.js';
import { InvalidInput, NotFound } from '../errors.js';
import { setSiteLicenseUntil } from './standing.store.js';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A date alone means through the end of that day (UTC); a full timestamp means that moment. */
export function licenseEnd(until: string): string {
  const parsed = Date.parse(DATE_ONLY.test(until) ? `${until}T23:59:59.999Z` : until);
  if (Number.isNaN(parsed)) throw new InvalidInput(`--until must be a date such as 2027-12-31 (got "${until}")`);
  return new Date(parsed).toISOString();
}

/**
 * Grants (or, with null, removes) a site license: sitelicense mode, no debits, unlimited
 * keys. The user is found by their email as identity normalises it, and named in a refusal
 * as the operator typed it. The operator's command runs in a process of its own, whose
 * credential cache no request reads, so nothing here has cached credentials to forget.
 */
export async function setSiteLicense(
  ctx: Pick<AppContext, 'db'>,
  user: { email: string; normalizedEmail: string },
  untilIso: string | null,
) {
  const updated = await setSiteLicenseUntil(ctx.db, user.normalizedEmail, untilIso);
  if (!updated) throw new NotFound(`No user with email ${user.email}`);
  return { userId: updated.id, email: updated.email, siteLicenseUntil: updated.site_license_until };
}
