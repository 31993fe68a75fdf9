import { useState } from 'preact/hooks';
import type { SkillItem } from '../../../../src/sdk/types';
import { removeSkill } from '../../requests/skills';
import { navigate } from '../../router';
import { useMe } from '../../session';
import { Notice, useAction } from '../../ui';

/**
 * Removing a skill installed into the workspace, asked twice: the first press says what
 * removing does and offers the real button beside a way back. The server decides who may
 * (owners and admins) and refuses while a run of it is going; its words are shown as they are.
 */
export function RemoveSkill({ skill }: { skill: SkillItem }) {
  const [asking, setAsking] = useState(false);
  const action = useAction();
  const me = useMe();
  // A plain member is told who can, rather than offered a button the server refuses.
  const mayRemove = me?.workspace.role !== 'member' || me.user.isAdmin;
  const remove = () =>
    void action.run(async () => {
      await removeSkill(skill.slug);
      navigate('/skills');
    });
  return (
    <section class="card skill-remove" aria-labelledby="skill-remove-title">
      <h3 id="skill-remove-title">Remove this skill</h3>
      {!mayRemove ? (
        <p class="hint">Installed into this workspace. Its owners and admins can update or remove it; ask one of them.</p>
      ) : asking ? (
        <>
          <p>
            Remove {skill.name} from this workspace? Nobody here can run it afterwards. Past runs of it keep their history and
            artifacts.
          </p>
          <div class="row">
            <button type="button" class="danger" disabled={action.busy} onClick={remove}>
              {action.busy ? 'Removing…' : `Remove ${skill.name}`}
            </button>
            <button type="button" disabled={action.busy} onClick={() => setAsking(false)}>
              Keep it
            </button>
          </div>
        </>
      ) : (
        <>
          <p class="hint">
            Installed into this workspace, so its owners and admins can remove it. To change it, install a new version with{' '}
            <code>skillet skills update FOLDER</code>.
          </p>
          <button type="button" onClick={() => setAsking(true)}>
            Remove…
          </button>
        </>
      )}
      {action.error && <Notice kind="error">{action.error}</Notice>}
    </section>
  );
}
