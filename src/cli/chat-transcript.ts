import { notificationWords } from '../sdk/thread-notifications.js';
import type { ThreadRecord } from '../sdk/thread-types.js';

export interface PendingApproval {
  approvalId: string;
  label: string;
}

/**
 * A thread as a terminal shows it, and what the conversation waits on. Records come in
 * order, each once (the SDK's stream sees to that). Messages this terminal sent are
 * answered once a turn's end has seen them (its `through` reaches their sequence); an
 * approval request stands until a tool result or the turn's end follows it.
 */
export class ChatTranscript {
  readonly #write: (text: string) => void;
  /** Texts typed here and sent, not yet seen back: not echoed a second time. */
  readonly #typed: string[] = [];
  /** Sequences of the messages sent from here, once seen in the thread. */
  readonly #sentSequences = new Set<number>();
  #sendsInFlight = 0;
  #answeredThrough = 0;
  #streaming: string | undefined;
  #approval: PendingApproval | undefined;
  #failures = 0;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  /** A message about to be sent from this terminal. */
  sending(text: string): void {
    this.#typed.push(text);
    this.#sendsInFlight += 1;
  }

  /** A message that could not be sent after all. */
  unsent(text: string): void {
    const typedAt = this.#typed.indexOf(text);
    if (typedAt >= 0) this.#typed.splice(typedAt, 1);
    this.#sendsInFlight -= 1;
  }

  get pendingApproval(): PendingApproval | undefined {
    return this.#approval;
  }

  /** Turns that ended with an error since the start. */
  get failures(): number {
    return this.#failures;
  }

  /** Every message sent from here has had its answer (or nothing was sent). */
  get settled(): boolean {
    if (this.#sendsInFlight > 0) return false;
    for (const sequence of this.#sentSequences) if (sequence > this.#answeredThrough) return false;
    return true;
  }

  add(record: ThreadRecord): void {
    switch (record.type) {
      case 'user.message': {
        const typedAt = this.#typed.indexOf(record.text);
        if (typedAt >= 0) {
          this.#typed.splice(typedAt, 1);
          this.#sendsInFlight -= 1;
          this.#sentSequences.add(record.sequence);
        } else {
          this.#line(`> ${record.text}`);
        }
        return;
      }
      case 'agent.chunk':
        if (this.#streaming !== record.messageId) {
          this.#endStreaming();
          this.#write('Assistant: ');
          this.#streaming = record.messageId;
        }
        this.#write(record.text);
        return;
      case 'agent.message':
        if (this.#streaming === record.messageId) this.#endStreaming();
        else this.#line(`Assistant: ${record.text}`);
        return;
      case 'tool.approval_request':
        this.#approval = { approvalId: record.approvalId, label: record.label };
        this.#line(`The assistant asks to: ${record.label}`);
        return;
      case 'tool.result':
        this.#approval = undefined;
        this.#line(resultLine(record));
        return;
      case 'notification':
        this.#line(`Notice: ${notificationWords(record.text)}`);
        return;
      case 'agent.turn_end':
        this.#approval = undefined;
        this.#answeredThrough = Math.max(this.#answeredThrough, record.through ?? record.sequence);
        if (record.stopReason !== 'end_turn') {
          this.#failures += 1;
          this.#line(
            `The assistant stopped: ${record.reason ?? (record.stopReason === 'limit_reached' ? 'it reached a limit' : 'something went wrong')}`,
          );
        }
        return;
    }
  }

  #line(text: string): void {
    this.#endStreaming();
    this.#write(`${text}\n`);
  }

  #endStreaming(): void {
    if (this.#streaming === undefined) return;
    this.#streaming = undefined;
    this.#write('\n');
  }
}

function resultLine(record: Extract<ThreadRecord, { type: 'tool.result' }>): string {
  if (record.status === 'denied') return `  ✗ not allowed: ${record.tool}`;
  if (record.status === 'error') return `  ! ${record.tool} failed: ${record.summary}`;
  return `  ✓ ${record.tool}: ${record.summary}`;
}
