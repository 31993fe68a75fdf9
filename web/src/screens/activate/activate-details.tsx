import { useEffect, useState } from 'preact/hooks';
import type { ActivationDetails, ActivationStatus } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { lookUpActivation } from '../../requests/activation';
import { Notice } from '../../ui';
import { ActivationDecision, type Decided } from './activate-decision';
import { CodeForm } from './activate-form';
import { ActivationOutcome } from './activate-outcome';

/** The current time, moving once a second while the page shows a countdown. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

function timeLeftText(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, '0')}`;
}

export function ActivationLookup({ code }: { code: string }) {
  const lookup = useLoad(() => lookUpActivation(code), [code]);
  const [decided, setDecided] = useState<Decided | undefined>();
  const now = useNow();
  const details = lookup.data;
  const leftMs = details ? Date.parse(details.expires_at) - now : 0;
  const runOut = details?.status === 'pending' && leftMs <= 0;
  // The countdown is the page's guess; once it runs out, ask the server for its word.
  const { reload } = lookup;
  useEffect(() => {
    if (runOut) reload();
  }, [runOut, reload]);

  if (details === undefined) {
    return lookup.error ? <Notice kind="error">{lookup.error}</Notice> : <p aria-busy="true">Looking up the code…</p>;
  }
  if (details === null) {
    return (
      <section aria-labelledby="activate-unknown">
        <h2 id="activate-unknown">Unknown code</h2>
        <Notice kind="error">
          No device is waiting with the code <span class="mono">{code}</span>.
        </Notice>
        <p>
          Check the code on the device's screen and type it again. If the device shows no code any more, start again there (for
          the command line, run <code>skillet login</code>).
        </p>
        <CodeForm submitLabel="Try this code" />
      </section>
    );
  }
  // Our own decision shows at once, before the reload confirms it. The countdown never
  // overrules the server: with the clocks apart, the code's state is the server's word.
  const status: ActivationStatus = details.status === 'pending' && decided ? decided.kind : details.status;
  const pending = status === 'pending';
  const facts = <DeviceFacts details={details} timeLeft={pending ? timeLeftText(leftMs) : undefined} />;
  if (!pending) {
    // Once decided, what happened comes first; the device's details stay below for the record.
    return (
      <>
        <ActivationOutcome status={status} decided={decided} />
        {facts}
      </>
    );
  }
  return (
    <>
      {facts}
      <ActivationDecision
        code={details.user_code}
        onDecided={(outcome) => {
          setDecided(outcome);
          reload();
        }}
        onStale={reload}
      />
    </>
  );
}

/** What the server knows of the device; the time left only while the code still waits. */
function DeviceFacts({ details, timeLeft }: { details: ActivationDetails; timeLeft: string | undefined }) {
  return (
    <section aria-labelledby="activate-device">
      <h2 id="activate-device">{timeLeft === undefined ? 'The device' : 'Which device is asking'}</h2>
      <dl class="activate-facts">
        <dt>Code</dt>
        <dd class="mono">{details.user_code}</dd>
        <dt>
          Device name <span class="claimed">as reported by the device</span>
        </dt>
        <dd>{details.client_label}</dd>
        <dt>
          Software <span class="claimed">as reported by the device</span>
        </dt>
        <dd class="mono">{details.client_ua || '(none sent)'}</dd>
        <dt>IP address</dt>
        <dd class="mono">{details.client_ip}</dd>
        {timeLeft !== undefined && (
          <>
            <dt>Time left</dt>
            <dd>
              <span role="timer" aria-live="off">
                {timeLeft}
              </span>{' '}
              <span class="muted">(until {new Date(details.expires_at).toLocaleTimeString()})</span>
            </dd>
          </>
        )}
      </dl>
      {timeLeft !== undefined && (
        <p class="hint">
          The device chose its own name and software description, so they prove nothing. Approve only a device you just started
          yourself.
        </p>
      )}
    </section>
  );
}
