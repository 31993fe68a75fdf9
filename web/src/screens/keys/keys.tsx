import { useState } from 'preact/hooks';
import type { ApiKey, CreatedApiKey } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { listKeys, revokeKey } from '../../requests/keys';
import { listWorkspaces } from '../../requests/workspaces';
import { Notice, useAction } from '../../ui';
import { KeyCreate, NewKeyNotice } from './keys-create';
import { KeyTable } from './keys-table';
import './keys.css';

/**
 * API keys: each is a connected agent or integration, with a heartbeat from its last use.
 * A new key's plaintext lives only in this component's state, so it is gone once the
 * person leaves or reloads the page: the server keeps only its hash.
 */
export function KeysScreen() {
  const keys = useLoad(listKeys, []);
  const workspaces = useLoad(listWorkspaces, []);
  const [created, setCreated] = useState<CreatedApiKey | undefined>();
  const [revoked, setRevoked] = useState<string | undefined>();
  const revoke = useAction();

  const onRevoke = (key: ApiKey) =>
    revoke.run(async () => {
      setRevoked(undefined);
      await revokeKey(key.id);
      if (created?.id === key.id) setCreated(undefined);
      setRevoked(key.label);
      keys.reload();
    });

  return (
    <>
      {created && <NewKeyNotice created={created} onDone={() => setCreated(undefined)} />}
      <KeyCreate
        onCreated={(key) => {
          setRevoked(undefined);
          setCreated(key);
          keys.reload();
        }}
      />
      <section aria-labelledby="keys-list">
        <div class="row keys-heading">
          <h2 id="keys-list">Your keys and connected agents</h2>
          <button type="button" onClick={keys.reload} disabled={keys.loading}>
            Refresh
          </button>
        </div>
        <p class="hint">“In use now” means used in the last 5 minutes. Revoking a key stops everything that uses it at once.</p>
        {revoked !== undefined && <Notice kind="success">Revoked “{revoked}”. It no longer works.</Notice>}
        {revoke.error && <Notice kind="error">{revoke.error}</Notice>}
        {keys.error && <Notice kind="error">{keys.error}</Notice>}
        {keys.data === undefined ? (
          !keys.error && <p aria-busy="true">Loading keys…</p>
        ) : keys.data.length === 0 ? (
          <p>No keys yet. Create one above, or approve a device under “Approve a device”.</p>
        ) : (
          <KeyTable keys={keys.data} workspaces={workspaces.data} busy={revoke.busy} onRevoke={onRevoke} />
        )}
      </section>
    </>
  );
}
