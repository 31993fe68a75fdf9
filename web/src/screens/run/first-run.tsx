import { useLoad } from '../../load';
import { getBalance } from '../../requests/billing';
import { listExecutions } from '../../requests/executions';
import { Link } from '../../router';

/** A skill that is free, quick and shows the whole thing live: where a first run should start. */
const FIRST_SKILL = 'ticker';

/**
 * For someone who has run nothing yet: what to try first, what they hold, and what a credit
 * is. It goes away by itself once the workspace has a run.
 */
export function FirstRun() {
  const state = useLoad(async () => {
    const [history, balance] = await Promise.all([
      listExecutions({ limit: 1, offset: 0, channels: '', interfaces: '' }),
      getBalance(),
    ]);
    return { ran: history.items.length > 0, balance };
  }, []);
  if (!state.data || state.data.ran) return null;
  const { balance } = state.data;
  return (
    <section aria-labelledby="first-run" class="card first-run">
      <h2 id="first-run">Start here</h2>
      <ol>
        <li>
          <Link href={`/skills/${FIRST_SKILL}`}>Try Ticker</Link>: it is free, takes a few seconds, and shows a run live from
          start to end.
        </li>
        <li>
          Skills that cost something show their price in credits, written Ds. You have <strong>{balance.balance} Ds</strong>; a
          run that fails because of the service gets its credits back.
        </li>
        <li>
          <Link href="/billing">Billing</Link> sells more credits, or lets you use your own model key. Runs, and the files they
          make, are kept under <Link href="/runs">Runs</Link> and <Link href="/artifacts">Artifacts</Link>.
        </li>
      </ol>
    </section>
  );
}
