import type { AppContext } from '../context.js';
import { Expired, NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { checkTimedSignature, signValue } from '../signed-values.js';
import { readableArtifact } from './access.js';
import { fileAt, findArtifact } from './artifacts.store.js';
import { isBundlePath } from './bundle.js';
import type { Delivery } from './delivery.js';

/** How long a preview link works: long enough to read a page, short enough not to be a share link. */
export const PREVIEW_LINK_LIFETIME_MS = 60 * 60_000;
const PURPOSE = 'artifact-preview';

type Signing = Pick<AppContext, 'keys' | 'clock'>;

/**
 * The base of a link that previews a bundle's files in a sandboxed frame. The frame's
 * document has an opaque origin, so the session cookie does not go with the requests for
 * its styles and pictures; the signature is in the path, so a relative link (`style.css`)
 * resolves under the same base and carries it too.
 */
export async function previewLink(
  ctx: Signing & Pick<AppContext, 'db' | 'config'>,
  caller: Caller,
  artifactId: string,
): Promise<{ url: string; expiresAt: string }> {
  const artifact = await readableArtifact(ctx, caller, artifactId);
  const issued = ctx.clock.nowMs();
  const ts = String(issued);
  const sig = signValue(ctx.keys.signing, PURPOSE, [artifact.id, ts]);
  return {
    url: `${ctx.config.publicUrl}/api/v1/previews/${encodeURIComponent(artifact.id)}/${ts}.${sig}/`,
    expiresAt: new Date(issued + PREVIEW_LINK_LIFETIME_MS).toISOString(),
  };
}

/** One file through a preview link: the signature and its age are checked before anything is read. */
export async function previewFile(
  ctx: Signing & Pick<AppContext, 'db' | 'blobs'>,
  artifactId: string,
  token: string,
  filePath: string,
): Promise<Delivery> {
  const [ts, sig] = token.split('.');
  const check = checkTimedSignature(
    ctx.keys.signing,
    PURPOSE,
    { subject: artifactId, ts, sig },
    ctx.clock.nowMs(),
    PREVIEW_LINK_LIFETIME_MS,
  );
  if (check === 'invalid') throw new NotFound('This preview link is not one this server made.');
  if (check === 'expired') throw new Expired('This preview link has expired. Open the artifact again to see it.');
  const artifact = await findArtifact(ctx.db, artifactId);
  const file = artifact && isBundlePath(filePath) ? await fileAt(ctx.db, artifact.id, filePath) : undefined;
  if (!file) throw new NotFound('There is no such file in this artifact.');
  return { body: ctx.blobs.read(file.sha256), contentType: file.mime_type, size: Number(file.size) };
}
