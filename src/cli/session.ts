import { SkilletClient } from '../sdk/client.js';
import { CliError, EXIT } from './output.js';
import { DEFAULT_BASE_URL, readCredentials } from './settings.js';

export interface GlobalOptions {
  baseUrl?: string;
}

/** --base-url, else SKILLET_URL, else the server of the stored login, else the local default. */
export async function baseUrlOf(options: GlobalOptions): Promise<string> {
  return options.baseUrl ?? process.env.SKILLET_URL ?? (await readCredentials())?.baseUrl ?? DEFAULT_BASE_URL;
}

/** A client with the caller's key: SKILLET_API_KEY, else the stored login. */
export async function signedInClient(options: GlobalOptions): Promise<SkilletClient> {
  const apiKey = process.env.SKILLET_API_KEY ?? (await readCredentials())?.apiKey;
  if (!apiKey) throw new CliError('Not signed in. Run `skillet login` first (or set SKILLET_API_KEY).', EXIT.notSignedIn);
  return new SkilletClient({ baseUrl: await baseUrlOf(options), apiKey });
}
