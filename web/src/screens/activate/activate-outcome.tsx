import type { ActivationStatus } from '../../../../src/sdk/types';
import { Link } from '../../router';
import { Notice } from '../../ui';
import type { Decided } from './activate-decision';

const START_AGAIN = (
  <>
    start again on the device (for the command line, run <code>skillet login</code>) and approve the new code it shows
  </>
);

/** A code that is no longer pending: what happened, and what to do next. */
export function ActivationOutcome({
  status,
  decided,
}: {
  status: Exclude<ActivationStatus, 'pending'>;
  decided: Decided | undefined;
}) {
  return (
    <section aria-labelledby="activate-outcome" class={`activate-outcome activate-${status}`}>
      <h2 id="activate-outcome">{HEADINGS[status]}</h2>
      <OutcomeBody status={status} decided={decided} />
      <p>
        <Link href="/activate">Approve another device</Link>
      </p>
    </section>
  );
}

const HEADINGS: Record<Exclude<ActivationStatus, 'pending'>, string> = {
  approved: 'Approved',
  consumed: 'Code already used',
  denied: 'Denied',
  expired: 'Code expired',
};

function OutcomeBody({ status, decided }: { status: Exclude<ActivationStatus, 'pending'>; decided: Decided | undefined }) {
  const approvedHere = decided?.kind === 'approved' ? decided : undefined;
  switch (status) {
    case 'approved':
      return (
        <>
          <Notice kind="success">
            {approvedHere
              ? `You approved the device for ${approvedHere.workspace}.`
              : 'This code has been approved; the device has not collected its key yet.'}
          </Notice>
          <p>
            Go back to the device: it picks up its key on its next check and finishes signing in on its own. Its key is listed
            under <Link href="/keys">API keys</Link>, where you can revoke it at any time.
          </p>
        </>
      );
    case 'consumed':
      return (
        <>
          <Notice kind={approvedHere ? 'success' : 'info'}>
            {approvedHere
              ? `You approved the device for ${approvedHere.workspace}, and it has collected its key.`
              : 'This code was approved and the device has already collected its key. It cannot be used again.'}
          </Notice>
          <p>
            Nothing more to do here. If you do not recognise the device, revoke its key under <Link href="/keys">API keys</Link>.
            To connect another device, {START_AGAIN}.
          </p>
        </>
      );
    case 'denied':
      return (
        <>
          <Notice kind="info">
            {decided?.kind === 'denied' ? 'You denied the device.' : 'This code was denied.'} It gets no key.
          </Notice>
          <p>If that was a mistake, {START_AGAIN}.</p>
        </>
      );
    case 'expired':
      return (
        <>
          <Notice kind="error">
            This code ran out of time: codes last 10 minutes, and this one ended before the device collected a key.
          </Notice>
          <p>To connect the device, {START_AGAIN}.</p>
        </>
      );
  }
}
