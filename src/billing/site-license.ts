import type { AppContext } from '../context.js';
import { InvalidInput, NotFound } from '../errors.js';
import { normalizeEmail } from '../identity/users.js';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A date alone means through the end of that day (UTC); a full timestamp means that moment. */
export function licenseEnd(until: string): string {
  const parsed = Date.parse(DATE_ONLY.test(until) ? `${until}T23:59:59.999Z` : until);
  if (Number.isNaN(parsed)) throw new InvalidInput(`--until must be a date such as 2027-12-31 (got "${until}")`);
  return new Date(parsed).toISOString();
}

/** Grants (or, with null, removes) a site license: sitelicense mode, no debits, unlimited keys. */
export async function setSiteLicense(ctx: AppContext, email: string, untilIso: string | null) {
  const updated = await ctx.db
    .updateTable('users')
    .set({ site_license_until: untilIso })
    .where('email', '=', normalizeEmail(email))
    .returning(['id', 'email', 'site_license_until'])
    .executeTakeFirst();
  if (!updated) throw new NotFound(`No user with email ${email}`);
  ctx.credentials.forgetUser(updated.id);
  return { userId: updated.id, email: updated.email, siteLicenseUntil: updated.site_license_until };
}
