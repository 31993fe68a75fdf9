import { errors } from 'oidc-provider';

/** How long a client's name may be: enough for any real app, too short to pass for a page of text. */
const NAME_LIMIT = 100;
/** How many redirect URIs, contacts or other listed values a client may register. */
const LIST_LIMIT = 10;
/** How long one URI may be (browsers and proxies cut longer ones anyway). */
const URI_LIMIT = 2000;
/** How long any other value may be (a scope list, an algorithm, a contact). */
const TEXT_LIMIT = 200;
/** How many keys a client's own JWKS may hold. */
const KEY_LIMIT = 10;

/** Control characters, and those that turn text around (a name could read as another one). */
const UNPRINTABLE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * The RFC 7591 metadata a client may register that the server keeps (it drops the rest): each
 * is bounded, because a client's name and URIs end up on the consent page and in storage.
 */
export const BOUNDED_CLIENT_METADATA = [
  'client_name',
  'redirect_uris',
  'client_uri',
  'logo_uri',
  'policy_uri',
  'tos_uri',
  'jwks_uri',
  'initiate_login_uri',
  'sector_identifier_uri',
  'contacts',
  'scope',
  'grant_types',
  'response_types',
  'response_modes',
  'default_acr_values',
  'jwks',
] as const;

function refuse(description: string): never {
  // oidc-provider answers `invalid_redirect_uri` for a description about redirect_uris and
  // `invalid_client_metadata` for any other (RFC 7591 section 3.2.2).
  throw new errors.InvalidClientMetadata(description);
}

function limitOf(key: string): number {
  return key.endsWith('_uri') || key.endsWith('_uris') ? URI_LIMIT : TEXT_LIMIT;
}

function checkText(key: string, value: string): void {
  if (key === 'client_name') {
    if (value.length > NAME_LIMIT) refuse(`client_name may be at most ${NAME_LIMIT} characters; choose a shorter name`);
    if (UNPRINTABLE.test(value)) refuse('client_name may not hold control or text-direction characters; use plain text');
    return;
  }
  const limit = limitOf(key);
  if (value.length > limit) refuse(`${key} may be at most ${limit} characters; send a shorter value`);
}

function checkList(key: string, values: readonly unknown[]): void {
  if (key === 'redirect_uris') {
    if (values.length > LIST_LIMIT) {
      refuse(`redirect_uris may hold at most ${LIST_LIMIT} addresses; register only the ones the app uses`);
    }
    if (values.some((value) => typeof value === 'string' && value.length > URI_LIMIT)) {
      refuse(`redirect_uris may hold addresses of at most ${URI_LIMIT} characters; use a shorter address`);
    }
    return;
  }
  if (values.length > LIST_LIMIT) refuse(`${key} may hold at most ${LIST_LIMIT} entries; send fewer`);
  const limit = limitOf(key);
  if (values.some((value) => typeof value === 'string' && value.length > limit)) {
    refuse(`${key} may hold entries of at most ${limit} characters; send shorter ones`);
  }
}

/**
 * oidc-provider's `extraClientMetadata.validator`, run for each of BOUNDED_CLIENT_METADATA at
 * registration and whenever a stored client is read. Only sizes and characters are checked
 * here: types, URI syntax and allowed values are oidc-provider's own checks, which run after.
 */
export function validateClientMetadata(_ctx: unknown, key: string, value: unknown): void {
  if (typeof value === 'string') checkText(key, value);
  else if (Array.isArray(value)) checkList(key, value);
  else if (key === 'jwks' && typeof value === 'object' && value !== null && 'keys' in value) {
    const { keys } = value;
    if (Array.isArray(keys) && keys.length > KEY_LIMIT) refuse(`jwks may hold at most ${KEY_LIMIT} keys; send fewer`);
  }
}
