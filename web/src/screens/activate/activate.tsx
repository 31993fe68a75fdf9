import { ActivationLookup } from './activate-details';
import { CodeForm } from './activate-form';
import './activate.css';

/**
 * Approving a device: the code arrives in the link the device printed (`?code=`), or the
 * person types what the device shows. Each code gets a lookup of its own, so moving to
 * another code starts afresh.
 */
export function ActivateScreen({ code }: { code: string }) {
  const trimmed = code.trim();
  if (trimmed === '') {
    return (
      <section aria-labelledby="activate-enter">
        <h2 id="activate-enter">Enter the device's code</h2>
        <p>
          A device such as the <code>skillet</code> command line asks for access by showing a code like{' '}
          <span class="mono">ABCD-EFGH</span>. Type it here to see which device it is before you decide.
        </p>
        <CodeForm />
      </section>
    );
  }
  return <ActivationLookup key={trimmed} code={trimmed} />;
}
