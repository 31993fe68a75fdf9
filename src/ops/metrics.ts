import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type SandboxKill, sandboxKills } from '../runtime/script/script-exit.js';
import type { RunLimits } from '../sandbox/types.js';
import type { LedgerTotal } from './ops.store.js';
import { RequestMetrics } from './request-metrics.js';

/** What the metrics read at scrape time rather than count as it happens. */
export interface ScrapedSources {
  runsInProgress(): number;
  openStreams(): number;
  controlSockets(): number;
  /** Sandboxes started ahead of need and ready for a run now, by kind (computer, script). */
  warmSandboxes(): Record<string, number>;
  /** BullMQ job counts by state; absent on a single node, which has no queue. */
  queueDepth?(): Promise<Record<string, number>>;
  ledger(): Promise<LedgerTotal[]>;
  /** Statements this process has sent the database (a running count). */
  databaseStatements(): number;
  /** Transactions among them it committed (a running count). */
  databaseCommits(): number;
  /** The computer image this node runs agent runs' computers on; undefined: the host's folders. */
  computerImageVersion: string | undefined;
}

/**
 * One app's Prometheus metrics, in a registry of its own: tests build many apps in one
 * process, and the default global registry would mix them (and refuse a second metric of
 * one name).
 */
export class AppMetrics {
  readonly registry = new Registry();
  readonly #requests = new RequestMetrics();
  readonly runs = new Counter<'status' | 'runtime'>({
    name: 'skillet_runs_finished_total',
    help: 'Runs this node executed to their end, by final status (completed, failed, stopped) and skill runtime',
    labelNames: ['status', 'runtime'],
    registers: [this.registry],
  });
  readonly runSeconds = new Histogram<'status' | 'runtime'>({
    name: 'skillet_run_duration_seconds',
    help: 'Wall time of runs this node executed, by final status and skill runtime',
    labelNames: ['status', 'runtime'],
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter<'outcome'>({
    name: 'skillet_webhook_attempts_total',
    help: 'Outbound webhook attempts this node made, by outcome (delivered, retrying, failed: no retry left)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly kills = new Counter<'cause'>({
    name: 'skillet_sandbox_kills_total',
    help: 'Runs the sandbox ended for breaking a limit, by the limit',
    labelNames: ['cause'],
    registers: [this.registry],
  });
  readonly #stopListening: () => void;

  constructor(sources: ScrapedSources, limits: RunLimits) {
    collectDefaultMetrics({ register: this.registry, prefix: 'skillet_' });
    const registers = [this.registry];
    new Gauge({
      name: 'skillet_runs_in_progress',
      help: 'Runs executing on this node now',
      registers,
      collect() {
        this.set(sources.runsInProgress());
      },
    });
    new Gauge({
      name: 'skillet_event_streams_open',
      help: 'Event streams open on this node now',
      registers,
      collect() {
        this.set(sources.openStreams());
      },
    });
    new Gauge({
      name: 'skillet_control_sockets_open',
      help: 'Control-plane WebSockets open on this node now',
      registers,
      collect() {
        this.set(sources.controlSockets());
      },
    });
    new Gauge<'kind'>({
      name: 'skillet_warm_sandboxes',
      help: 'Sandboxes started ahead of need and ready for a run on this node now, by kind (computer, script)',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        for (const [kind, count] of Object.entries(sources.warmSandboxes())) this.set({ kind }, count);
      },
    });
    // Constant for the process's life (the image is read at start): nodes of a cluster should agree.
    new Gauge<'version'>({
      name: 'skillet_computer_image_info',
      help: 'The computer image agent runs on this node use (version="host": this host\'s own folders); always 1',
      labelNames: ['version'],
      registers,
    }).set({ version: sources.computerImageVersion ?? 'host' }, 1);
    new Gauge<'state'>({
      name: 'skillet_run_queue_jobs',
      help: 'Jobs in the cluster run queue by state (absent on a single node)',
      labelNames: ['state'],
      registers,
      async collect() {
        this.reset();
        // A scrape while Redis is away still serves every other metric.
        const counts = await sources.queueDepth?.().catch(() => undefined);
        for (const [state, count] of Object.entries(counts ?? {})) this.set({ state }, count);
      },
    });
    new Counter({
      name: 'skillet_db_statements_total',
      help: 'Statements this node has sent the database, transaction control included',
      registers,
      collect() {
        this.reset();
        this.inc(sources.databaseStatements());
      },
    });
    new Counter({
      name: 'skillet_db_commits_total',
      help: 'Transactions this node has committed to the database',
      registers,
      collect() {
        this.reset();
        this.inc(sources.databaseCommits());
      },
    });
    // Read from the ledger at scrape time: it is where grants and debits are written, by
    // whichever node or admin command, and its totals survive restarts (see decisions.md).
    const ledgerCache = new LedgerScrape(sources);
    new Counter<'type' | 'direction'>({
      name: 'skillet_ledger_credits_total',
      help: 'Ds granted to (direction=grant) and debited from (direction=debit) balances, cluster-wide, by transaction type',
      labelNames: ['type', 'direction'],
      registers,
      async collect() {
        this.reset();
        for (const total of await ledgerCache.totals()) {
          this.inc({ type: total.type, direction: 'grant' }, total.granted);
          this.inc({ type: total.type, direction: 'debit' }, total.debited);
        }
      },
    });
    new Counter<'type' | 'direction'>({
      name: 'skillet_ledger_transactions_total',
      help: 'Ledger rows written, cluster-wide, by transaction type and direction',
      labelNames: ['type', 'direction'],
      registers,
      async collect() {
        this.reset();
        for (const total of await ledgerCache.totals()) {
          this.inc({ type: total.type, direction: 'grant' }, total.grants);
          this.inc({ type: total.type, direction: 'debit' }, total.debits);
        }
      },
    });
    const onKill = (message: unknown) => {
      const kill = message as SandboxKill;
      if (kill.limits === limits) this.kills.inc({ cause: kill.cause });
    };
    subscribe(sandboxKills.name, onKill);
    this.#stopListening = () => unsubscribe(sandboxKills.name, onKill);
  }

  /** Records one answered request; `route` is the pattern, never the URL (unbounded label values). */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.#requests.observe(method, route, status, seconds);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in the text format, for a scrape. */
  async exposition(): Promise<string> {
    return `${await this.registry.metrics()}\n${this.#requests.render()}`;
  }

  close(): void {
    this.#stopListening();
  }
}

/** One ledger query per scrape, shared by the two ledger metrics. */
class LedgerScrape {
  #pending: Promise<LedgerTotal[]> | undefined;
  constructor(private readonly sources: ScrapedSources) {}

  totals(): Promise<LedgerTotal[]> {
    // A scrape while the database is away still serves every other metric.
    this.#pending ??= this.sources
      .ledger()
      .catch((): LedgerTotal[] => [])
      .finally(() => {
        setImmediate(() => {
          this.#pending = undefined;
        });
      });
    return this.#pending;
  }
}
