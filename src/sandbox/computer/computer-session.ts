import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../paths.js';
import type { RunGroup, SkillSandbox } from '../../ports/sandbox.js';
import { ToolRefused } from '../confined-files.js';
import { seccompArgs } from '../seccomp-filter.js';
import { systemViewArgs } from '../system-folders.js';
import { imageViewArgs } from './computer-image.js';
import { type ComputerAnswer, Machine } from './computer-machine.js';
import { NETWORK_INSIDE } from './computer-network.js';
import { COMPUTER_PATHS } from './computer-paths.js';
import { GLOBAL_NODE_MODULES, SANDBOX_PYTHON } from './computer-software.js';
import { PLAYWRIGHT_BROWSERS_INSIDE } from './playwright-browsers.js';

/** The supervisor, its file tools and the network's forwarder, shown read only inside at /opt/skillet. */
const COMPUTER_CODE = path.join(PROJECT_ROOT, 'computer');
const COMPUTER_CODE_INSIDE = '/opt/skillet';
const SUPERVISOR_INSIDE = `${COMPUTER_CODE_INSIDE}/supervisor.py`;
/** How long the supervisor may take to answer beyond a command's own time limit before the computer counts as hung. */
const ANSWER_GRACE_MS = 10_000;
/** A computer that keeps dying is not restarted for ever within one run. */
const MAX_STARTS = 4;
/**
 * Read-only extras of /etc the installed software reads on a host without an image: fonts for
 * matplotlib and LibreOffice, Debian's matplotlibrc (matplotlib will not import without it),
 * the MIME table, and certificates for HTTPS through the proxy. An image brings its own /etc.
 */
const SYSTEM_EXTRAS = ['/etc/fonts', '/etc/matplotlibrc', '/etc/mime.types', '/etc/ssl/certs', '/etc/ca-certificates'].filter(
  (file) => existsSync(file),
);
/**
 * The computer's own /etc files, on the image's or the host's: localhost resolves, the
 * sandbox's user has a name and a home, and names are looked up in files only.
 */
const OWN_ETC = ['hosts', 'passwd', 'group', 'nsswitch.conf'].flatMap((file) => [
  '--ro-bind',
  path.join(COMPUTER_CODE, 'etc', file),
  `/etc/${file}`,
]);
/** First on PATH: `python`, and pip and npm that end at once without a network (computer/bin). */
const COMPUTER_BIN_INSIDE = `${COMPUTER_CODE_INSIDE}/bin`;

export interface ComputerFolders {
  /**
   * Skill folders shown read only at /mnt/skills/<slug>/: the running skill's, or for the
   * threads assistant every skill the workspace can run. A warm computer (computer-pool.ts)
   * starts before its skill is known, so it shows a host folder of its own, a `shelf`, read
   * only at /mnt/skills/, and the skill is placed on it when a run takes the computer.
   */
  skills: { slug: string; dir: string }[] | { shelf: string };
  /**
   * The host folder /mnt/session/outputs/ (and /mnt/user-data/outputs/) shows: the run's
   * output. Without one (a scratch computer on a server that may not mount) it is a tmpfs of
   * the sandbox's own, of the space's size.
   */
  outputDir: string | undefined;
  /**
   * The run's writable space. `host`: a bounded folder on the host whose `home/` is
   * /workspace, `tmp/` /tmp and `shm/` /dev/shm, one budget for the three, outliving a
   * restart of the computer. `sandbox`: where the server cannot mount, three tmpfs that
   * bubblewrap makes inside the sandbox, each of `bytes` (all of them count as the run's
   * memory), gone with the sandbox.
   */
  space: { host: string } | { sandbox: number };
  /** The folder of the egress proxy's socket, when the run has a network. */
  networkDir: string | undefined;
  /** The run's input files, read only at /mnt/user-data/uploads/. */
  uploadsDir: string | undefined;
}

export interface ComputerOptions {
  sandbox: SkillSandbox;
  folders: ComputerFolders;
  group: RunGroup | undefined;
  /** Extra environment for the shell (the egress proxy's variables). */
  env: Record<string, string>;
}

/** A run's computer with what it stands on: its bounded space and its network. */
export interface RunComputer {
  session: ComputerSession;
  /** Hosts its network reaches; empty without one. */
  allowedHosts: readonly string[];
  /** The host folder shown as /workspace, where the space is on the host (a run's journal checkpoints it). */
  workspaceDir: string | undefined;
  /** Starts its network for `runId` (a no-op without one): once the computer is some run's. */
  claim(runId: string): Promise<void>;
  /** Releases the space and the network, once the sandbox and the run's group are gone. */
  release(): Promise<void>;
}

/** The writable folders' mounts: the host's bounded folder bound in, or tmpfs of bubblewrap's own. */
function spaceArgs(space: ComputerFolders['space']): string[] {
  const places: [string, string][] = [
    ['home', COMPUTER_PATHS.workspace],
    ['tmp', '/tmp'],
    ['shm', '/dev/shm'],
  ];
  if ('host' in space) return places.flatMap(([part, inside]) => ['--bind', path.join(space.host, part), inside]);
  // Owned by the sandbox's user: a tmpfs bubblewrap makes is root's, inside, unless told otherwise.
  return places.flatMap(([, inside]) => ['--perms', '1777', '--size', String(space.sandbox), '--tmpfs', inside]);
}

/** The outputs folder and its alias: the host's output folder, or a tmpfs of the sandbox's own. */
function outputArgs(outputDir: string | undefined, space: ComputerFolders['space']): string[] {
  if (outputDir) {
    return ['--bind', outputDir, COMPUTER_PATHS.outputs, '--bind', outputDir, COMPUTER_PATHS.outputsAlias];
  }
  const bytes = 'sandbox' in space ? space.sandbox : 0;
  return [
    ...['--perms', '1777', '--size', String(bytes), '--tmpfs', COMPUTER_PATHS.outputs],
    ...['--symlink', COMPUTER_PATHS.outputs, COMPUTER_PATHS.outputsAlias],
  ];
}

/** bubblewrap's arguments for the computer: the fixed paths of DESIGN §14 and nothing of the server's. */
function computerArgs(sandbox: SkillSandbox, folders: ComputerFolders): string[] {
  const { skills, outputDir, space, uploadsDir, networkDir } = folders;
  const uploads = uploadsDir ? ['--ro-bind', uploadsDir, COMPUTER_PATHS.uploads] : ['--dir', COMPUTER_PATHS.uploads];
  const network = networkDir ? ['--ro-bind', networkDir, NETWORK_INSIDE] : [];
  const binds = [
    ...spaceArgs(space),
    ...network,
    ...uploads,
    ...outputArgs(outputDir, space),
    ...('shelf' in skills
      ? ['--ro-bind', skills.shelf, COMPUTER_PATHS.skills]
      : skills.flatMap((skill) => ['--ro-bind', skill.dir, `${COMPUTER_PATHS.skills}/${skill.slug}`])),
    '--ro-bind',
    COMPUTER_CODE,
    COMPUTER_CODE_INSIDE,
    ...OWN_ETC,
  ];
  const inside = ['--as-pid-1', '--chdir', COMPUTER_PATHS.workspace];
  if (sandbox.computerImage) return [...imageViewArgs(sandbox.computerImage.root, binds), ...inside];
  const runtime = sandbox.runtimeFiles.map((file) => realpathSync(file));
  return [...systemViewArgs([...runtime, ...SYSTEM_EXTRAS], binds), ...inside];
}

/** The shell's environment: the computer's paths, and where the image's Node packages and browsers are. */
function computerEnv(sandbox: SkillSandbox, extra: Record<string, string>): Record<string, string> {
  const image: Record<string, string> = sandbox.computerImage
    ? { NODE_PATH: GLOBAL_NODE_MODULES, PLAYWRIGHT_BROWSERS_PATH: PLAYWRIGHT_BROWSERS_INSIDE }
    : {};
  return {
    PATH: `${COMPUTER_BIN_INSIDE}:/usr/local/bin:/usr/bin:/bin`,
    HOME: COMPUTER_PATHS.workspace,
    USER: 'user',
    LOGNAME: 'user',
    LANG: 'C.UTF-8',
    TMPDIR: '/tmp',
    TERM: 'dumb',
    MPLBACKEND: 'Agg',
    PYTHONDONTWRITEBYTECODE: '1',
    // pip installs into ~/.local (the system's folders are read only), as in any container.
    PIP_BREAK_SYSTEM_PACKAGES: '1',
    ...image,
    ...extra,
  };
}

/**
 * The computer of one run (DESIGN §14): a bubblewrap sandbox in the run's control group whose
 * process 1 is the supervisor (computer/supervisor.py), holding one bash shell and doing the
 * file tools' work inside. Started at most a few times: should it die (a kill, a crash),
 * the next call starts a new one on the same /workspace and says so.
 */
export class ComputerSession {
  readonly #options: ComputerOptions;
  #machine: Machine | undefined;
  #starts = 0;
  #calls = 0;
  #closed = false;

  constructor(options: ComputerOptions) {
    this.#options = options;
  }

  /** Starts the sandbox ahead of the first call, so the model's first command does not wait for it. */
  warmUp(): void {
    void this.start().catch(() => undefined);
  }

  /** Starts the sandbox, resolving once its supervisor is ready for calls. */
  async start(): Promise<void> {
    await this.#current();
  }

  /** Whether the sandbox is up and ready for a call now, without a start to wait for. */
  get ready(): boolean {
    return this.#machine?.alive === true && this.#machine.isReady;
  }

  async #current(): Promise<{ machine: Machine; restarted: boolean }> {
    if (this.#closed) throw new ToolRefused('The run was stopped.');
    if (this.#machine?.alive) {
      await this.#machine.ready;
      return { machine: this.#machine, restarted: false };
    }
    const restarted = this.#machine !== undefined;
    if (this.#starts >= MAX_STARTS) {
      throw new ToolRefused('The computer stopped too often in this run and is not started again.');
    }
    this.#starts += 1;
    const { sandbox, folders, group, env } = this.#options;
    if (!sandbox.bwrapPath) throw new ToolRefused('The computer is not available on this server.');
    const command = {
      file: sandbox.bwrapPath,
      args: [
        ...seccompArgs(sandbox.seccompFile),
        ...computerArgs(sandbox, folders),
        SANDBOX_PYTHON,
        '-E',
        '-S',
        '-B',
        SUPERVISOR_INSIDE,
      ],
    };
    const launch = { procsFiles: group?.procsFiles, setpriv: sandbox.setpriv, seccompFile: sandbox.seccompFile };
    const machine = new Machine(command, launch, computerEnv(sandbox, env));
    this.#machine = machine;
    try {
      await machine.ready;
    } catch (error) {
      throw new ToolRefused(`The computer could not start: ${(error as Error).message}.`);
    }
    return { machine, restarted };
  }

  /** How many operations were sent to it so far: none since a moment means nothing but the supervisor has run in it since. */
  get calls(): number {
    return this.#calls;
  }

  /** Sends one operation to the supervisor; a computer that died is started again, and the answer says so. */
  async call(body: Record<string, unknown>, answerWithinMs: number): Promise<ComputerAnswer> {
    this.#calls += 1;
    const { machine, restarted } = await this.#current();
    let answer: ComputerAnswer;
    try {
      answer = await machine.request(body, answerWithinMs + ANSWER_GRACE_MS);
    } catch (error) {
      if (this.#closed) throw new ToolRefused('The run was stopped.');
      throw new ToolRefused(
        `The computer stopped during this call (${(error as Error).message}); the next call starts it again, ` +
          'with the files of /workspace kept but the shell new.',
      );
    }
    return restarted ? { ...answer, restarted: true } : answer;
  }

  /** Ends the sandbox and everything in it. */
  close(): void {
    this.#closed = true;
    this.#machine?.kill();
  }

  /** Ends the sandbox, settling once its supervisor, process 1 of everything in it, has ended. */
  async end(): Promise<void> {
    this.close();
    await this.#machine?.exited;
  }
}
