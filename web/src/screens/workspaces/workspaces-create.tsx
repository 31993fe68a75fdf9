import { useState } from 'preact/hooks';
import { createWorkspace, type Workspace } from '../../requests/workspaces';
import { Link } from '../../router';
import { Notice, useAction } from '../../ui';

/** Creates a team workspace, owned by the person; switching into it stays their choice. */
export function WorkspaceCreate({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [created, setCreated] = useState<Workspace | undefined>();
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setCreated(undefined);
      setCreated(await createWorkspace(name.trim()));
      setName('');
      onCreated();
    });
  };
  return (
    <section aria-labelledby="workspaces-create">
      <h2 id="workspaces-create">Create a team workspace</h2>
      <form onSubmit={submit}>
        <label for="workspace-name">Workspace name</label>
        <div class="row workspaces-form-row">
          <input
            id="workspace-name"
            required
            maxLength={100}
            autoComplete="off"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
          <button type="submit" class="primary" disabled={action.busy}>
            Create workspace
          </button>
        </div>
        <p class="hint">You become its owner and can bring people in from its member list.</p>
        {action.error && <Notice kind="error">{action.error}</Notice>}
        {created && (
          <Notice kind="success">
            Created “{created.name}”. Switch to it above, or{' '}
            <Link href={`/workspaces?members=${encodeURIComponent(created.id)}`}>add its members</Link>.
          </Notice>
        )}
      </form>
    </section>
  );
}
