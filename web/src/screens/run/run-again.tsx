import { navigate } from '../../router';
import { CopyButton } from '../../ui';
import { keepDraft } from './run-busy';
import { textOf } from './run-events';
import type { RunEvent } from './run-stream';

/** The input the run was started with: its first user.message. */
export function inputOf(events: RunEvent[]): string | undefined {
  const first = events.find((event) => event.type === 'user.message');
  return first ? textOf(first.payload) : undefined;
}

/** A shell word that reads back as `text`, whatever it holds. */
const shellQuoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The same run from a terminal and from code: the CLI in one line, and the one call the API
 * takes (create, start and wait for the result), with the key left for the reader to fill.
 */
function snippets(origin: string, slug: string, input: string): { label: string; copy: string; text: string }[] {
  const body = JSON.stringify({ skill_slug: slug, input });
  return [
    { label: 'Command line', copy: 'Copy the command', text: `skillet run ${slug} ${shellQuoted(input)}` },
    {
      label: 'HTTP (curl)',
      copy: 'Copy the call',
      text: [
        `curl -s ${origin}/api/v1/runs -H "x-api-key: $SKILLET_API_KEY" \\`,
        `  -H 'content-type: application/json' -H 'Prefer: wait' \\`,
        `  -d ${shellQuoted(body)}`,
        '# 201: the result (status, output, artifacts). 202: still running after 60 s; sseUrl follows it.',
      ].join('\n'),
    },
  ];
}

/** "Run again" with the same input filled in, and the run as a command or as API calls. */
export function RunAgain({ slug, events }: { slug: string; events: RunEvent[] }) {
  const input = inputOf(events);
  if (input === undefined) return null;
  const again = () => {
    keepDraft(slug, input);
    navigate(`/skills/${encodeURIComponent(slug)}`);
  };
  return (
    <section aria-labelledby="run-again" class="run-section">
      <h2 id="run-again">Run it again</h2>
      <div class="row">
        <button type="button" class="primary" onClick={again}>
          Run again
        </button>
        <span class="hint">Opens the skill with this run’s input filled in, to change or run as it is.</span>
      </div>
      <details class="run-snippets">
        <summary>Run this from a terminal or from code</summary>
        {snippets(window.location.origin, slug, input).map(({ label, copy, text }) => (
          <figure key={label} class="run-snippet">
            <figcaption class="row">
              {label} <CopyButton text={text} label={copy} />
            </figcaption>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a block that scrolls sideways must be reachable by keyboard. */}
            <pre class="mono" tabIndex={0}>
              {text}
            </pre>
          </figure>
        ))}
        <p class="hint">
          Make a key under Keys and set it as SKILLET_API_KEY; the command line asks you to sign in once with skillet login.
        </p>
      </details>
    </section>
  );
}
