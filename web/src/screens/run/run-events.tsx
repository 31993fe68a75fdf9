import { useFollowingScroll } from '../../follow-scroll';
import type { RunEvent } from './run-stream';
import { timeOfDay } from './run-times';

/** Where a run stands, from its status and the session events seen so far. */
export type Phase = 'new' | 'running' | 'interrupted' | 'completed' | 'failed';

const STOP_REASONS: Record<string, string> = {
  end_turn: 'finished',
  interrupt: 'interrupted',
  limit_reached: 'credit limit reached',
  error: 'error',
};

export function stopReasonOf(event: RunEvent): string {
  const reason = event.payload.stop_reason;
  const type = reason && typeof reason === 'object' ? (reason as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : 'unknown';
}

function stopReasonLabel(reason: string): string {
  return STOP_REASONS[reason] ?? reason;
}

/**
 * The session events say what the run is doing now; a finished execution's status is final
 * (its replay starts with a status_running that is long over), and before any event arrives
 * the status endpoint is all there is.
 */
export function phaseOf(status: string | undefined, startedAt: string | null | undefined, events: RunEvent[]): Phase | undefined {
  if (status === 'completed' || status === 'failed') return status;
  const session = lastOf(events, (event) => event.type.startsWith('session.status_'));
  if (session?.type === 'session.status_running') return 'running';
  if (session?.type === 'session.status_idle') {
    const reason = stopReasonOf(session);
    return reason === 'interrupt' ? 'interrupted' : reason === 'end_turn' ? 'completed' : 'failed';
  }
  if (status === 'working') return 'running';
  if (status === 'idle') return startedAt ? 'interrupted' : 'new';
  return undefined;
}

/** The last event that matches (Array.prototype.findLast is newer than the app's ES2022 target). */
export function lastOf(events: RunEvent[], test: (event: RunEvent) => boolean): RunEvent | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as RunEvent;
    if (test(event)) return event;
  }
  return undefined;
}

export function textOf(payload: Record<string, unknown>): string {
  const content = Array.isArray(payload.content) ? (payload.content as unknown[]) : [];
  return content
    .map((block) => (block && typeof block === 'object' ? (block as { type?: unknown; text?: unknown }) : {}))
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

export interface TokenUsage {
  input_tokens?: number;
  output_tokens?: number;
}

export function tokensText(usage: unknown): string {
  const { input_tokens: input = 0, output_tokens: output = 0 } = (usage && typeof usage === 'object' ? usage : {}) as TokenUsage;
  return `${input} input tokens, ${output} output tokens`;
}

function infoText(payload: Record<string, unknown>): string {
  return typeof payload.message === 'string' ? payload.message : JSON.stringify(payload);
}

/** What one event says, as a short kind and a line of text. */
function describe(event: RunEvent): { kind: string; text: string; detail?: string } {
  const { payload } = event;
  switch (event.type) {
    case 'user.message':
      return { kind: 'you', text: textOf(payload) };
    case 'user.interrupt':
      return { kind: 'you', text: 'Interrupt' };
    case 'session.status_running':
      return { kind: 'status', text: 'Run started' };
    case 'session.status_idle':
      return { kind: 'status', text: `Run ended: ${stopReasonLabel(stopReasonOf(event))}` };
    case 'agent.message':
      return { kind: 'message', text: textOf(payload) };
    case 'agent.tool_use':
      return {
        kind: `tool ${String(payload.name ?? '')}`,
        text: String(payload.label ?? ''),
        detail: String(payload.tool ?? ''),
      };
    case 'agent.thinking':
      return { kind: 'thinking', text: 'Thinking…' };
    case 'agent.info':
      return { kind: 'info', text: infoText(payload) };
    case 'span.model_request_end':
      return { kind: 'model call', text: tokensText(payload.usage) };
    case 'execution.result':
      return { kind: 'result', text: String(payload.summary ?? '') };
    default:
      return { kind: event.type, text: JSON.stringify(payload) };
  }
}

/**
 * Every event of the run in order, announced politely as they arrive. The log scrolls in
 * its own box and follows new events while the person is at its end; once they scroll up
 * to read, it stays where they are.
 */
export function EventList({ events, times }: { events: RunEvent[]; times: ReadonlyMap<number, number> }) {
  const box = useFollowingScroll<HTMLDivElement>(events.length);
  if (events.length === 0) return <p class="muted">No events yet.</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to be scrolled.
    <div role="log" aria-label="Run events" class="run-log" ref={box} tabIndex={0}>
      <ol class="events run-events">
        {events.map((event) => {
          const { kind, text, detail } = describe(event);
          const at = times.get(event.sequence);
          return (
            <li key={event.sequence} class={`run-event run-event-${event.type.replace(/\W/g, '-')}`}>
              {at !== undefined && (
                <time class="run-event-time muted mono" dateTime={new Date(at).toISOString()}>
                  {timeOfDay(at)}
                </time>
              )}
              <span class="run-event-kind">{kind}</span>
              <span class="run-event-text">{text}</span>
              {detail && <span class="muted mono run-event-detail">{detail}</span>}
            </li>
          );
        })}
      </ol>
    </div>
  );
}
