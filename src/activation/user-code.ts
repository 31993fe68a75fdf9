import { randomString } from '../secrets.js';

/** A-Z without I and O, digits 2-9: nothing a person could misread. */
export const USER_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function generateUserCode(): string {
  const raw = randomString(8, USER_CODE_ALPHABET);
  return `${raw.slice(0, 4)}-${raw.slice(4)}`;
}

const NORMALIZED_SHAPE = new RegExp(`^[${USER_CODE_ALPHABET}]{8}$`);

/**
 * Reads a code the way a person types it: any case, spaces around, with or without the
 * dash. Returns the stored form XXXX-XXXX, or null when it cannot be a code at all.
 */
export function normalizeUserCode(input: string): string | null {
  const compact = input
    .trim()
    .toUpperCase()
    .replace(/^(.{4})-(.{4})$/, '$1$2');
  if (!NORMALIZED_SHAPE.test(compact)) return null;
  return `${compact.slice(0, 4)}-${compact.slice(4)}`;
}
