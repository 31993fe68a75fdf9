import { useState } from 'preact/hooks';
import type { ArtifactWithContent, ManifestFile } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { artifactDownloadUrl, artifactFileUrl, artifactPreviewLink, type FoundArtifact } from '../../requests/artifacts';
import { Notice } from '../../ui';
import { kindOf, Preview } from './artifact-preview';
import { formatSize } from './artifacts';

/** The file a bundle opens on: its top-level page or readme, as the server picks its main file. */
function isHome(file: ManifestFile): boolean {
  return file.path === 'index.html' || file.path === 'README.md';
}

/**
 * A page of the bundle in a frame with every sandbox restriction, opened under a signed
 * link: the frame's own requests (its styles, its pictures) carry no cookie, and the link in
 * their path is what lets the server answer them.
 */
function BundlePage({ artifactId, path, title }: { artifactId: string; path: string; title: string }) {
  const link = useLoad(() => artifactPreviewLink(artifactId), [artifactId]);
  if (link.error) return <Notice kind="error">{link.error}</Notice>;
  if (!link.data) return <p aria-busy="true">Opening the page…</p>;
  const src = `${link.data.url}${path.split('/').map(encodeURIComponent).join('/')}`;
  return <iframe sandbox="" class="preview" title={title} src={src} />;
}

/** A bundle's files: pick one to preview it, or download it on its own. */
export function BundleFiles({ artifactId, files }: { artifactId: string; files: ManifestFile[] }) {
  const [chosen, setChosen] = useState((files.find(isHome) ?? files[0])?.path);
  const file = files.find((candidate) => candidate.path === chosen);
  return (
    <section aria-labelledby="bundle-files">
      <h2 id="bundle-files">Files</h2>
      <ul class="bundle-files">
        {files.map((entry) => (
          <li key={entry.path}>
            <button type="button" class="bundle-file" aria-pressed={entry.path === chosen} onClick={() => setChosen(entry.path)}>
              <span class="mono">{entry.path}</span>
              <span class="muted">{formatSize(entry.size)}</span>
            </button>
          </li>
        ))}
      </ul>
      {file && (
        <div class="bundle-preview">
          <div class="row bundle-preview-head">
            <h3 class="mono">{file.path}</h3>
            <a class="button-link" href={artifactFileUrl(artifactId, file.path)} download={file.path.split('/').pop()}>
              Download this file
            </a>
          </div>
          {kindOf(file.mimeType, file.path) === 'html' ? (
            <BundlePage key={file.path} artifactId={artifactId} path={file.path} title={`Preview of ${file.path}`} />
          ) : (
            <Preview
              key={file.path}
              kind={kindOf(file.mimeType, file.path)}
              source={{ url: artifactFileUrl(artifactId, file.path) }}
              title={`Preview of ${file.path}`}
              size={file.size}
            />
          )}
        </div>
      )}
    </section>
  );
}

/** A single file's preview from what the detail already holds; images load from the download route. */
export function SingleFilePreview({ artifact }: { artifact: ArtifactWithContent }) {
  const kind = kindOf(artifact.fileType);
  const source = kind === 'image' ? { url: artifactDownloadUrl(artifact.id) } : { text: artifact.content };
  const truncated = kind !== 'image' && new TextEncoder().encode(artifact.content).length < artifact.contentSize;
  return (
    <>
      {truncated && kind !== 'none' && (
        <Notice kind="info">Only the start of the file is shown; download it for all of it.</Notice>
      )}
      <Preview kind={kind} source={source} title={`Preview of ${artifact.title}`} size={artifact.contentSize} />
    </>
  );
}

/** What a run made, shown itself: a single file, or the page (or first file) a bundle opens on. */
export function MainFilePreview({ found }: { found: FoundArtifact }) {
  const { artifact, files } = found;
  if (artifact.status !== 'completed') return null;
  if (!files) return <SingleFilePreview artifact={artifact} />;
  const main = files.find(isHome) ?? files[0];
  if (!main) return null;
  const kind = kindOf(main.mimeType, main.path);
  return kind === 'html' ? (
    <BundlePage artifactId={artifact.id} path={main.path} title={`Preview of ${artifact.title}`} />
  ) : (
    <Preview
      kind={kind}
      source={{ url: artifactFileUrl(artifact.id, main.path) }}
      title={`Preview of ${artifact.title}`}
      size={main.size}
    />
  );
}
