import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { SkilletClient } from '../../sdk/client.js';
import { SkilletError } from '../../sdk/errors.js';
import { ChatTranscript } from '../chat-transcript.js';
import { EXIT, explain, printLine, printTable, usageError } from '../output.js';
import { type GlobalOptions, signedInClient } from '../session.js';

interface ChatOptions {
  agent: string;
  thread?: string;
  json?: boolean;
}

const YES = new Set(['y', 'yes']);
const NO = new Set(['n', 'no']);

/**
 * One conversation in a terminal: the thread's records are followed from its start (so a
 * resumed thread shows what was said), and each line typed is a message, or the answer
 * to the approval the assistant is waiting on. It ends once everything sent has been
 * answered and input has ended (the one message given as an argument counts as all of it).
 */
class ChatSession {
  readonly #transcript: ChatTranscript;
  readonly #following = new AbortController();
  #messagesDone = false;
  #stdinClosed = false;
  #queue: Promise<void> = Promise.resolve();
  #finished!: () => void;
  readonly done = new Promise<void>((resolve) => {
    this.#finished = resolve;
  });

  constructor(
    private readonly client: SkilletClient,
    private readonly agent: string,
    private readonly thread: { resourceId: string; threadId: string },
    private readonly json: boolean,
  ) {
    // As JSON, records are printed as they are; the transcript only keeps count of what is answered.
    this.#transcript = new ChatTranscript(json ? () => undefined : (text) => process.stdout.write(text));
  }

  get failures(): number {
    return this.#transcript.failures;
  }

  follow(): void {
    const records = this.client.threads.records(this.agent, this.thread, { signal: this.#following.signal });
    void (async () => {
      try {
        for await (const record of records) {
          if (this.json) printLine(record);
          this.#transcript.add(record);
          if (!this.json && record.type === 'tool.approval_request' && this.#transcript.pendingApproval) {
            process.stdout.write('Allow it? Type y or n.\n');
          }
          this.#check();
        }
      } catch (error) {
        if (this.#following.signal.aborted) return;
        process.exitCode = explain(error);
        this.#finish();
      }
    })();
  }

  /** Lines are handled one at a time, in the order typed. */
  line(text: string, messagesAllowed: boolean): void {
    this.#queue = this.#queue
      .then(() => this.#handle(text.trim(), messagesAllowed))
      .catch((error: unknown) => {
        process.exitCode = explain(error);
      });
  }

  send(text: string): Promise<void> {
    this.#transcript.sending(text);
    return this.client.threads.send(this.agent, this.thread, text).then(
      () => undefined,
      (error: unknown) => {
        this.#transcript.unsent(text);
        throw error;
      },
    );
  }

  /** No more messages will be sent; typed lines may still answer approvals. */
  messagesDone(): void {
    void this.#queue.then(() => {
      this.#messagesDone = true;
      this.#check();
    });
  }

  /** Nothing more can be typed: an approval still waiting is left for the app. */
  stdinClosed(): void {
    void this.#queue.then(() => {
      this.#stdinClosed = true;
      this.#check();
    });
  }

  async #handle(text: string, messagesAllowed: boolean): Promise<void> {
    if (text === '') return;
    const approval = this.#transcript.pendingApproval;
    if (approval) {
      const answer = text.toLowerCase();
      if (!YES.has(answer) && !NO.has(answer)) {
        process.stdout.write('Type y to allow it, or n to refuse it.\n');
        return;
      }
      await this.client.threads.answer(this.agent, this.thread.threadId, approval.approvalId, YES.has(answer)).catch((error) => {
        // Someone else answered it first (in the app, another terminal): their answer stands.
        if (error instanceof SkilletError && error.status === 409) process.stdout.write(`${error.message}\n`);
        else throw error;
      });
      return;
    }
    if (!messagesAllowed) {
      process.stdout.write('Nothing is waiting for an answer; the reply is still coming.\n');
      return;
    }
    await this.send(text);
  }

  #check(): void {
    if (!this.#messagesDone) return;
    if (this.#transcript.settled) {
      this.#finish();
    } else if (this.#stdinClosed && this.#transcript.pendingApproval) {
      process.stderr.write('The assistant is waiting for your yes or no: answer it in the app, or go on here.\n');
      this.#finish();
    }
  }

  /** Stops following the thread; the conversation is over. */
  stop(): void {
    this.#finish();
  }

  #finish(): void {
    this.#following.abort();
    this.#finished();
  }
}

async function chat(client: SkilletClient, message: string | undefined, options: ChatOptions): Promise<void> {
  const [me, { agents }] = await Promise.all([client.auth.me(), client.threads.agents()]);
  if (!agents.some((agent) => agent.id === options.agent)) {
    throw usageError(
      `There is no agent ${options.agent} in this workspace. \`skillet chats --agents\` lists the ones there are.`,
    );
  }
  const threadId = options.thread ?? randomUUID();
  const session = new ChatSession(client, options.agent, { resourceId: me.workspace.id, threadId }, options.json === true);
  session.follow();
  const interactive = process.stdin.isTTY === true;
  if (interactive && message === undefined) {
    process.stderr.write('Type a message and press Enter. Ctrl-D ends the conversation.\n');
  }
  const lines = createInterface({ input: process.stdin, terminal: false });
  lines.on('line', (line) => session.line(line, message === undefined));
  lines.once('close', () => {
    if (message === undefined) session.messagesDone();
    session.stdinClosed();
  });
  try {
    if (message !== undefined) {
      // One message: typed lines only answer approvals, and its answer ends the conversation.
      await session.send(message);
      session.messagesDone();
    }
    await session.done;
  } finally {
    // Refused or done, nothing may keep the process open: the stream and stdin both end.
    session.stop();
    lines.close();
  }
  process.stderr.write(`Go on with this conversation: skillet chat --thread ${threadId}\n`);
  if (session.failures > 0 && process.exitCode === undefined) process.exitCode = EXIT.failure;
}

export function chatCommands(program: Command, global: () => GlobalOptions): void {
  program
    .command('chat [message]')
    .description("talk with the workspace's assistant: it finds skills and runs them, with your yes")
    .option('--agent <id>', 'talk to an agent skill instead (`skillet chats --agents` lists them)', 'assistant')
    .option('--thread <id>', 'go on with a conversation (its id is printed when one ends)')
    .option('--json', 'print each record of the conversation as one JSON line')
    .action(async (message: string | undefined, options: ChatOptions) => chat(await signedInClient(global()), message, options));

  program
    .command('chats')
    .description('list your conversations with an agent, the latest first')
    .option('--agent <id>', 'whose conversations', 'assistant')
    .option('--agents', 'list the agents you can talk to instead')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { agent: string; agents?: boolean; json?: boolean }) => {
      const client = await signedInClient(global());
      if (options.agents) {
        const { agents } = await client.threads.agents();
        if (options.json) return printLine(agents);
        return printTable(
          ['AGENT', 'NAME', 'ABOUT'],
          agents.map((agent) => [agent.id, agent.name, agent.description]),
        );
      }
      const page = await client.threads.list(options.agent, { limit: 50 });
      if (options.json) return printLine(page.items);
      if (page.items.length === 0) {
        process.stdout.write('No conversations yet. Start one with `skillet chat`.\n');
        return;
      }
      printTable(
        ['THREAD', 'LAST ACTIVE', 'STARTED WITH'],
        page.items.map((item) => [item.threadId, item.updatedAt, item.title]),
      );
    });
}
