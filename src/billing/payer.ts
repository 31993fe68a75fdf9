/**
 * Whom billing acts for: the parts of a signed-in caller it reads. Identity's Caller has
 * them; billing names its own so that it does not depend on identity, which depends on it.
 */
export interface Payer {
  userId: string;
  isAdmin: boolean;
}
