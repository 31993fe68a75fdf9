import type { AppContext } from '../context.js';
import { InvalidInput, NotFound } from '../errors.js';
import { invalidateForUser } from '../identity/user-invalidation.js';
import type { ModelProvider } from '../language-models.js';
import { decrypt, encrypt } from '../secrets.js';
import { byokOf, clearByok, sealedByokOf, setByok } from './byok.store.js';

interface ByokStatus {
  hasKey: boolean;
  keyPreview: string | null;
  provider: string | null;
}

const KEY_SHAPE = /^sk-[A-Za-z0-9_-]{16,300}$/;

/** The provider a key belongs to, by its prefix; the longer, vendor-specific one is tested first. */
export function providerOfKey(key: string): ModelProvider | null {
  if (!KEY_SHAPE.test(key)) return null;
  return key.startsWith('sk-ant-') ? 'anthropic' : 'openai';
}

/** Enough of a key to recognise it, never enough to use it. */
export function maskKey(key: string): string {
  const head = key.startsWith('sk-ant-') ? 'sk-ant-' : 'sk-';
  return `${head}…${key.slice(-4)}`;
}

export async function byokStatus(ctx: Pick<AppContext, 'db'>, userId: string): Promise<ByokStatus> {
  const row = await byokOf(ctx.db, userId);
  if (!row) throw new NotFound('User not found');
  return { hasKey: row.byok_provider !== null, keyPreview: row.byok_preview, provider: row.byok_provider };
}

/** Stores the caller's own model key, sealed with AES-256-GCM; it moves paygmode to byokmode. */
export async function storeByokKey(
  ctx: Pick<AppContext, 'db' | 'keys' | 'credentials' | 'control' | 'clock'>,
  userId: string,
  key: unknown,
): Promise<ByokStatus> {
  if (typeof key !== 'string' || key === '') throw new InvalidInput('key is required');
  const provider = providerOfKey(key);
  if (!provider) throw new InvalidInput('key must be an sk- model provider key');
  const keyPreview = maskKey(key);
  const stored = await setByok(ctx.db, userId, { sealed: encrypt(ctx.keys.byok, key), preview: keyPreview, provider });
  if (!stored) throw new NotFound('User not found');
  ctx.credentials.forgetUser(userId);
  await invalidateForUser(ctx, userId, ['byok']);
  return { hasKey: true, keyPreview, provider };
}

export async function deleteByokKey(
  ctx: Pick<AppContext, 'db' | 'credentials' | 'control' | 'clock'>,
  userId: string,
): Promise<{ hasKey: false; keyPreview: null }> {
  await clearByok(ctx.db, userId);
  ctx.credentials.forgetUser(userId);
  await invalidateForUser(ctx, userId, ['byok']);
  return { hasKey: false, keyPreview: null };
}

/** A user's own model key, unsealed for a run that rides on it; undefined when none is stored. */
export async function ownModelKey(
  ctx: Pick<AppContext, 'db' | 'keys'>,
  userId: string,
): Promise<{ provider: ModelProvider; key: string } | undefined> {
  const row = await sealedByokOf(ctx.db, userId);
  if (!row?.byok_sealed) return undefined;
  const key = decrypt(ctx.keys.byok, row.byok_sealed);
  const provider = providerOfKey(key);
  return provider ? { provider, key } : undefined;
}
