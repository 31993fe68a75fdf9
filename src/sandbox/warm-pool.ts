import { randomUUID } from 'node:crypto';
import { freemem } from 'node:os';
import path from 'node:path';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { BoundedFolder, SkillSandbox } from '../ports/sandbox.js';
import { Clearings } from './clearings.js';
import { openBoundedFolder, outputSpace } from './run-space.js';
import { settlesWithin } from './settles-within.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Fills the pools of warm sandboxes and keeps them filled: an entry point's call once its
     * node serves. An app that never calls it (a test's) fills a pool after its first run that asks.
     */
    warmSandboxes(): void;
  }
}

/** A sandbox kept warm longer than this is replaced: it should not outlive a change to the machine's software by long. */
export const WARM_MAX_AGE_MS = 10 * 60_000;
/** How often a pool looks at what it holds: dead, stale, or too many for the free memory. */
const TEND_EVERY_MS = 15_000;
/** After a take, the next is started this much later, so the run's own start has the processor first. */
const REFILL_DELAY_MS = 250;
const MIB = 1024 * 1024;
/**
 * What one waiting sandbox is counted as holding, with room to spare: a computer's
 * supervisor and idle shell take about 15 MB, a script sandbox's Node about 40.
 */
const WAITING_BYTES = 64 * MIB;
/** How long a run's end waits for its released sandbox to stop. */
const STOP_WAIT_MS = 2000;

export interface WarmPoolDeps {
  sandbox: SkillSandbox;
  config: Pick<Config, 'dataDir' | 'executions' | 'webhooks'>;
  log: {
    info(fields: Record<string, unknown>, message: string): void;
    warn(fields: Record<string, unknown>, message: string): void;
  };
  clock: Clock;
  /** Bytes of memory free on this machine; os.freemem when absent. */
  freeMemory?: () => number;
}

/**
 * Sandboxes of one kind started ahead of need (issue 29), each handed to one run and never
 * back: the pool keeps itself filled one at a time, replaces the dead and the stale, and
 * holds fewer when free memory is short. Taking is synchronous, so two runs asking at once
 * never get the same one. A kind says how to make one, whether it still lives, and how to
 * clear it away (`discard` never throws).
 */
export abstract class WarmPool<Item> {
  protected readonly deps: WarmPoolDeps;
  /** What the log calls one. */
  readonly #name: string;
  /** How many the operator wants held. */
  readonly #size: number;
  /** The memory limit of the runs one would serve. */
  readonly #runMemoryBytes: number;
  readonly #ready: { item: Item; madeAt: number }[] = [];
  #filling: Promise<void> | undefined;
  /** Stops the regular tending, once started. */
  #stopTending: (() => void) | undefined;
  /** The refill due after a take: a pause for the processor's sake, so a real timer, not the clock's. */
  #refill: NodeJS.Timeout | undefined;
  #closed = false;
  /** What is left of sandboxes whose runs let go of them, being cleared away: close waits for it. */
  readonly #clearings: Clearings;

  constructor(deps: WarmPoolDeps, name: string, size: number, runMemoryMb: number) {
    this.deps = deps;
    this.#name = name;
    this.#size = size;
    this.#runMemoryBytes = runMemoryMb * MIB;
    this.#clearings = new Clearings(deps.log);
  }

  protected abstract make(): Promise<Item>;
  protected abstract alive(item: Item): boolean;
  protected abstract discard(item: Item): Promise<void>;

  /**
   * A run's output folder, made as a run's own would be (a bounded tmpfs where the server may
   * mount), under scratch/ so a server killed outright has it removed at its next start.
   */
  protected openOutput(): Promise<BoundedFolder> {
    const { sandbox, config } = this.deps;
    const limits = config.executions;
    const space = outputSpace({ outputBytes: limits.outputLimitBytes, outputFiles: limits.outputFileLimit });
    return openBoundedFolder(sandbox.boundedSpace, path.join(config.dataDir, 'scratch', randomUUID()), space);
  }

  /**
   * The release a taken sandbox's run calls, once however often asked (its runtime asks, and
   * the runner again): the run's end waits for `stop`, which ends everything that runs in
   * it, so nothing writes to the run's output once it is counted; `clear` then removes the
   * rest (its group, mounts and folders) while the run's end goes on. close waits for it.
   */
  protected releaseOf(stop: () => Promise<void>, clear: () => Promise<void>): () => Promise<void> {
    let released: Promise<void> | undefined;
    const release = async () => {
      try {
        // Bounded, as the kill rounds are: a process the kernel cannot end at once must not hold up the run's end for ever.
        if (!(await settlesWithin(stop(), STOP_WAIT_MS))) {
          this.deps.log.warn(
            {},
            `a released warm ${this.#name} did not stop within ${STOP_WAIT_MS} ms; it is cleared away when it does`,
          );
        }
      } finally {
        this.#clearings.start(`a used warm ${this.#name}`, clear);
      }
    };
    return () => {
      released ??= release();
      return released;
    };
  }

  /** Resolves once what is left of every sandbox let go of so far is cleared away. */
  cleared(): Promise<void> {
    return this.#clearings.settled();
  }

  /** How many are ready now. */
  get size(): number {
    return this.#ready.length;
  }

  /** Fills the pool now and keeps tending it; without this it fills after the first take. */
  start(): void {
    if (this.#closed || this.#stopTending) return;
    this.#stopTending = this.deps.clock.every(TEND_EVERY_MS, () => void this.tend());
    void this.tend();
  }

  /** A fresh one, now the caller's alone, or undefined when none is ready; either way the pool refills soon after. */
  protected take(): Item | undefined {
    if (this.#closed || this.#size === 0) return undefined;
    this.#refillSoon();
    for (let held = this.#ready.shift(); held; held = this.#ready.shift()) {
      if (this.#fresh(held)) return held.item;
      void this.discard(held.item);
    }
    return undefined;
  }

  /** Drops the dead, the stale and those free memory no longer allows, then starts what is missing. */
  async tend(): Promise<void> {
    const kept = this.#ready.filter((held) => this.#fresh(held));
    kept.splice(0, Math.max(0, kept.length - this.#target()));
    const dropped = this.#ready.filter((held) => !kept.includes(held));
    this.#ready.splice(0, this.#ready.length, ...kept);
    await Promise.all(dropped.map((held) => this.discard(held.item)));
    await this.#fill();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopTending?.();
    clearTimeout(this.#refill);
    await this.#filling;
    await Promise.all(this.#ready.splice(0).map((held) => this.discard(held.item)));
    await this.cleared();
  }

  #fresh(held: { item: Item; madeAt: number }): boolean {
    return this.alive(held.item) && this.deps.clock.nowMs() - held.madeAt < WARM_MAX_AGE_MS;
  }

  /**
   * How many to hold: the setting, but only while free memory covers one run's limit (for
   * the run that takes one next) and what each waiting one holds. A limit caps and reserves
   * nothing, so a pool is not sized as if every sandbox held its run's whole limit: with 4 GiB
   * computers that would have kept a machine with 8 GiB free from holding any.
   */
  #target(): number {
    const { freeMemory = freemem } = this.deps;
    const spare = freeMemory() - this.#runMemoryBytes;
    return Math.max(0, Math.min(this.#size, Math.floor(spare / WAITING_BYTES)));
  }

  #refillSoon(): void {
    if (this.#closed || this.#refill) return;
    this.#refill = setTimeout(() => {
      this.#refill = undefined;
      void this.tend();
    }, REFILL_DELAY_MS).unref();
  }

  /** One round of filling at a time: a second ask while one runs waits for that one. */
  #fill(): Promise<void> {
    if (!this.#filling) {
      const filling = this.#fillRound();
      this.#filling = filling;
      void filling.finally(() => {
        if (this.#filling === filling) this.#filling = undefined;
      });
    }
    return this.#filling;
  }

  /** Starts one at a time until the pool holds its target; one that will not start ends the round. */
  async #fillRound(): Promise<void> {
    try {
      while (!this.#closed && this.#ready.length < this.#target()) {
        const item = await this.make();
        if (this.#closed) await this.discard(item);
        else this.#ready.push({ item, madeAt: this.deps.clock.nowMs() });
      }
    } catch (error) {
      this.deps.log.warn({ err: error }, `a warm ${this.#name} could not be started; runs start their own meanwhile`);
    }
  }
}
