import { SkilletClient } from '../../sdk/client.js';
import { SkilletError } from '../../sdk/errors.js';
import type { Me } from '../../sdk/types.js';
import { printJson } from '../output.js';
import { forgetCredentials, readCredentials, type StoredCredentials } from '../settings.js';

export interface LogoutOptions {
  json?: boolean;
}

/** Why the server copy of the key stayed live, or null once it is revoked (or was already dead). */
type Revocation = { revoked: true } | { revoked: false; reason: string };

function reasonOf(error: unknown, baseUrl: string): string {
  if (error instanceof TypeError && /fetch failed/.test(error.message)) return `could not reach ${baseUrl}`;
  return error instanceof Error ? error.message : String(error);
}

async function revoke(stored: StoredCredentials): Promise<Revocation> {
  // The key's own server: a key is never sent to another one named by --base-url or SKILLET_URL.
  const keyClient = new SkilletClient({ baseUrl: stored.baseUrl, apiKey: stored.apiKey });
  let me: Me;
  try {
    me = await keyClient.auth.me();
  } catch (error) {
    // A key the server no longer takes is as revoked as it gets.
    if (error instanceof SkilletError && error.status === 401) return { revoked: true };
    return { revoked: false, reason: reasonOf(error, stored.baseUrl) };
  }
  try {
    // A key may revoke itself: no password needed.
    await keyClient.keys.revoke(me.credential.id);
    return { revoked: true };
  } catch (error) {
    return { revoked: false, reason: reasonOf(error, stored.baseUrl) };
  }
}

/** Revokes the stored key on its server, then forgets it here, whether or not the server could be reached. */
export async function logout(options: LogoutOptions): Promise<void> {
  const stored = await readCredentials();
  if (!stored) {
    if (options.json) return printJson({ signedOut: false, revoked: false });
    process.stderr.write('Not signed in.\n');
    return;
  }
  const revocation = await revoke(stored);
  await forgetCredentials();
  const preview = `${stored.apiKey.slice(0, 14)}...${stored.apiKey.slice(-4)}`;
  if (options.json) {
    return printJson({ signedOut: true, ...revocation, keyPreview: preview });
  }
  if (revocation.revoked) {
    process.stderr.write(`Signed out. The key ${preview} is revoked on ${stored.baseUrl}.\n`);
    return;
  }
  process.stderr.write(
    `Signed out here, but the key ${preview} could not be revoked on the server (${revocation.reason}).\n` +
      'It stays valid until you revoke it in the app (API keys).\n',
  );
}
