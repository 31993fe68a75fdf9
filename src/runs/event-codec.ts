import type { StopReason } from '../db/tables-runs.js';
import type { TokenUsage } from '../language-models.js';

export interface TextBlock {
  type: 'text';
  text: string;
}

type NoPayload = Record<string, never>;

/** Every kind of event an execution stores, with its payload: what a client can receive. */
export type NewEvent =
  | { type: 'user.message'; payload: { content: TextBlock[] } }
  | { type: 'user.interrupt'; payload: NoPayload }
  | { type: 'session.status_running'; payload: NoPayload }
  | { type: 'session.status_idle'; payload: { stop_reason: { type: StopReason } } }
  | { type: 'agent.message'; payload: { content: TextBlock[] } }
  | { type: 'agent.tool_use'; payload: { name: string; tool: string; label: string } }
  | { type: 'agent.thinking'; payload: NoPayload }
  | { type: 'agent.info'; payload: { message: string } }
  | { type: 'span.model_request_end'; payload: { usage: TokenUsage } }
  | {
      type: 'execution.result';
      // artifactId (beyond the spec's fields) tells a client which artifact the run wrote.
      payload: { summary: string; cost: number; tokenUsage: TokenUsage; artifactId?: string };
    };

export type EventType = NewEvent['type'];

/** A stored event: its kind and payload, its id and its place in the execution's sequence. */
export type ExecutionEvent = NewEvent & { id: string; sequence: number };

export function stampEvent(event: NewEvent, id: string, sequence: number): ExecutionEvent {
  return { ...event, id, sequence };
}

/**
 * An event as one server-sent-event frame: the bytes stored, replayed and sent live alike.
 * The frame is how an event is kept (decisions.md, "Streams"), so the fields go out in
 * one fixed order however the event object was built.
 */
export function encodeFrame(event: ExecutionEvent): string {
  const data = JSON.stringify({ id: event.id, type: event.type, sequence: event.sequence, payload: event.payload });
  return `id: ${event.sequence}\ndata: ${data}\n\n`;
}

/** The event inside one frame written by encodeFrame. */
export function decodeFrame(frame: string): ExecutionEvent {
  return JSON.parse(frame.slice(frame.indexOf('\ndata: ') + 7)) as ExecutionEvent;
}
