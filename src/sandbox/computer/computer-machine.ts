import type { Readable } from 'node:stream';
import type { Command } from '../launch-command.js';
import { type RelayedProcess, startRelayed } from '../relayed-process.js';

/** One answer of the supervisor (computer/supervisor.py), as it sent it. */
export type ComputerAnswer = Record<string, unknown>;

const START_TIMEOUT_MS = 15_000;

/**
 * The largest answer line the supervisor sends: an image read (5 MB as base64) with room to
 * spare. Anything larger is not the supervisor's, and ends the computer before it can grow
 * the server's memory.
 */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** Calls `onLine` with each line of `stream`, or once with undefined when a line passes `maxBytes`. */
function readLines(stream: Readable, maxBytes: number, onLine: (line: string | undefined) => void): void {
  let kept: Buffer[] = [];
  let keptBytes = 0;
  stream.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      kept.push(chunk.subarray(start, end));
      onLine(Buffer.concat(kept).toString('utf8'));
      kept = [];
      keptBytes = 0;
      start = end + 1;
    }
    keptBytes += chunk.length - start;
    if (keptBytes > maxBytes) {
      stream.destroy();
      onLine(undefined);
      return;
    }
    if (start < chunk.length) kept.push(chunk.subarray(start));
  });
}

interface Pending {
  resolve(answer: ComputerAnswer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** One started sandbox: the supervisor process and its answers, matched to requests by id. */
export class Machine {
  readonly ready: Promise<void>;
  /** Settles once the supervisor's process has ended (or never started). */
  readonly exited: Promise<void>;
  /** Whether it said it was ready (and has not ended since: see `alive`). */
  isReady = false;
  #process: RelayedProcess | undefined;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #gone: Error | undefined;
  /** Fails the start, when the machine ends before it said it was ready. */
  #onEnd: (error: Error) => void = () => undefined;

  constructor(
    command: Command,
    launch: { procsFiles: readonly string[] | undefined; setpriv: string | undefined; seccompFile: string | undefined },
    env: Record<string, string>,
  ) {
    let markReady: () => void = () => undefined;
    let failStart: (error: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    const startTimer = setTimeout(() => this.#end(new Error('the computer did not start in time')), START_TIMEOUT_MS);
    this.#onEnd = (error) => {
      clearTimeout(startTimer);
      failStart(error);
    };
    this.ready.catch(() => undefined);
    const launched = startRelayed(command, env, launch).then(
      (started) => {
        this.#process = started;
        if (this.#gone) started.kill();
        return started;
      },
      (error: unknown) => {
        this.#end(error instanceof Error ? error : new Error(String(error)));
        return undefined;
      },
    );
    this.exited = launched.then((started) => started?.exited);
    void launched.then((started) => {
      if (!started) return;
      started.exited.then(() => this.#end(new Error('the computer stopped')));
      readLines(started.stdout, MAX_ANSWER_BYTES, (line) => {
        if (line === undefined) {
          this.#end(new Error('the computer sent an answer larger than any it may send'));
          return;
        }
        let answer: ComputerAnswer;
        try {
          answer = JSON.parse(line) as ComputerAnswer;
        } catch {
          return;
        }
        if (answer.ready === true) {
          clearTimeout(startTimer);
          this.isReady = true;
          markReady();
          return;
        }
        const pending = this.#pending.get(Number(answer.id));
        if (!pending) return;
        this.#pending.delete(Number(answer.id));
        clearTimeout(pending.timer);
        pending.resolve(answer);
      });
    });
  }

  get alive(): boolean {
    return this.#gone === undefined;
  }

  #end(error: Error): void {
    if (this.#gone) return;
    this.#gone = error;
    this.#onEnd(error);
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.#pending.clear();
    // Still being started: it is killed as soon as it has started (see the constructor).
    this.#process?.kill();
  }

  /** Kills the supervisor, or, while it is still being started, kills it as soon as it has started. */
  kill(): void {
    this.#end(new Error('the computer was stopped'));
  }

  request(body: Record<string, unknown>, answerWithinMs: number): Promise<ComputerAnswer> {
    const started = this.#process;
    if (this.#gone || !started) return Promise.reject(this.#gone ?? new Error('the computer has not started'));
    const id = this.#nextId++;
    return new Promise<ComputerAnswer>((resolve, reject) => {
      const timer = setTimeout(() => this.#end(new Error('the computer stopped answering')), answerWithinMs);
      this.#pending.set(id, { resolve, reject, timer });
      started.stdin.write(`${JSON.stringify({ ...body, id })}\n`);
    });
  }
}
