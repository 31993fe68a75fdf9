import { useState } from 'preact/hooks';
import type { Artifact } from '../../../../src/sdk/types';
import { publishArtifact, unpublishArtifact } from '../../requests/artifacts';
import { CopyButton, Notice, useAction } from '../../ui';

/**
 * Publishing: a copy anyone can open without signing in. The server tells the public
 * address only when it publishes, so an artifact published earlier is published again
 * (which refreshes the same copy) to learn its link.
 */
export function Sharing({ artifact, onChange }: { artifact: Artifact; onChange: () => void }) {
  const [publicUrl, setPublicUrl] = useState<string>();
  const action = useAction();
  const publish = () =>
    action.run(async () => {
      const published = await publishArtifact(artifact.id);
      setPublicUrl(published.publicUrl);
      onChange();
    });
  const unpublish = () =>
    action.run(async () => {
      await unpublishArtifact(artifact.id);
      setPublicUrl(undefined);
      onChange();
    });
  const shown = artifact.isPublic ? publicUrl : undefined;
  return (
    <section aria-labelledby="artifact-sharing">
      <h2 id="artifact-sharing">Sharing</h2>
      {artifact.isPublic ? (
        <p>Published: anyone with the link can open it, without signing in.</p>
      ) : (
        <p class="muted">Private: only people in this workspace can see it.</p>
      )}
      {shown && (
        <div class="row public-link">
          <span>Public link:</span>
          <a href={shown} class="mono" target="_blank" rel="noreferrer">
            {shown}
          </a>
          <CopyButton text={shown} label="Copy link" />
        </div>
      )}
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <div class="row">
        {!artifact.isPublic && (
          <button type="button" class="primary" disabled={action.busy || artifact.status !== 'completed'} onClick={publish}>
            Publish
          </button>
        )}
        {artifact.isPublic && !shown && (
          <button type="button" disabled={action.busy} onClick={publish}>
            Show the public link
          </button>
        )}
        {artifact.isPublic && (
          <button type="button" disabled={action.busy} onClick={unpublish}>
            Unpublish
          </button>
        )}
      </div>
    </section>
  );
}
