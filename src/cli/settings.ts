import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

/** What `skillet login` keeps: the server and the workspace-bound API key it was given. */
export interface StoredCredentials {
  baseUrl: string;
  apiKey: string;
  workspace: { id: string; name: string | null };
  tier: string;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** SKILLET_CONFIG_DIR, else $XDG_CONFIG_HOME/skillet, else ~/.config/skillet. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SKILLET_CONFIG_DIR) return env.SKILLET_CONFIG_DIR;
  return path.join(env.XDG_CONFIG_HOME || path.join(homedir(), '.config'), 'skillet');
}

const credentialsFile = () => path.join(configDir(), 'credentials.json');

export async function readCredentials(): Promise<StoredCredentials | undefined> {
  try {
    return JSON.parse(await readFile(credentialsFile(), 'utf8')) as StoredCredentials;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Written readable by its owner only (0600), in a folder only they can enter (0700). */
export async function saveCredentials(credentials: StoredCredentials): Promise<string> {
  const file = credentialsFile();
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

export async function forgetCredentials(): Promise<boolean> {
  const existed = (await readCredentials()) !== undefined;
  await rm(credentialsFile(), { force: true });
  return existed;
}
