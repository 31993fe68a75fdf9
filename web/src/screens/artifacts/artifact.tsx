import type { ArtifactWithContent } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { artifactDownloadUrl, deleteArtifact, type FoundArtifact, findArtifact } from '../../requests/artifacts';
import { Link, navigate } from '../../router';
import { ConfirmButton, formatTime, Notice, useAction } from '../../ui';
import { BundleFiles, SingleFilePreview } from './artifact-files';
import { Sharing } from './artifact-sharing';
import { formatSize, typeLabel } from './artifacts';

function Facts({ artifact, files }: FoundArtifact) {
  return (
    <dl class="artifact-facts">
      <dt>Skill</dt>
      <dd>{artifact.skillName}</dd>
      <dt>Type</dt>
      <dd class="mono">{typeLabel(artifact, files?.length)}</dd>
      <dt>Size</dt>
      <dd>{formatSize(artifact.contentSize)}</dd>
      <dt>Created</dt>
      <dd>{formatTime(artifact.createdAt)}</dd>
      <dt>Status</dt>
      <dd>
        <span class={`badge badge-${artifact.status}`}>{artifact.status}</span>
      </dd>
      <dt>Cost</dt>
      <dd>{artifact.cost} Ds</dd>
    </dl>
  );
}

function SinglePreview({ artifact }: { artifact: ArtifactWithContent }) {
  return (
    <section aria-labelledby="artifact-preview">
      <h2 id="artifact-preview">Preview</h2>
      <SingleFilePreview artifact={artifact} />
    </section>
  );
}

function Shown({ found, reload }: { found: FoundArtifact; reload: () => void }) {
  const { artifact, files } = found;
  const removal = useAction();
  const remove = () =>
    removal.run(async () => {
      await deleteArtifact(artifact.id);
      navigate('/artifacts');
    });
  return (
    <>
      <section aria-labelledby="artifact-title">
        <h2 id="artifact-title" class="artifact-title">
          {artifact.title}
        </h2>
        <Facts artifact={artifact} files={files} />
        {artifact.status === 'pending' && <Notice kind="info">Its run is still writing it.</Notice>}
        {artifact.status === 'failed' && <Notice kind="error">Its run did not complete, so it has no files.</Notice>}
        {removal.error && <Notice kind="error">{removal.error}</Notice>}
        <div class="row">
          {artifact.status === 'completed' && (
            <a class="button-link" href={artifactDownloadUrl(artifact.id)} download>
              Download{artifact.bundleType === 'directory' ? ' (ZIP)' : ''}
            </a>
          )}
          <ConfirmButton label="Delete" confirmLabel="Delete for good" disabled={removal.busy} onConfirm={remove} />
        </div>
      </section>
      <Sharing artifact={artifact} onChange={reload} />
      {artifact.status === 'completed' &&
        (files ? <BundleFiles artifactId={artifact.id} files={files} /> : <SinglePreview artifact={artifact} />)}
    </>
  );
}

export function ArtifactScreen({ id }: { id: string }) {
  const { data, error, loading, reload } = useLoad(() => findArtifact(id), [id]);
  return (
    <>
      <p>
        <Link href="/artifacts">All artifacts</Link>
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      {data === undefined && loading && <p aria-busy="true">Loading…</p>}
      {data === null && (
        <Notice kind="error">Artifact not found. It may have been deleted, or it belongs to a workspace you are not in.</Notice>
      )}
      {data && <Shown found={data} reload={reload} />}
    </>
  );
}
