import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { SkillSandbox } from '../../src/ports/sandbox.js';
import { agentToolSpecs, runAgentTool, type ToolContext, toolLabel } from '../../src/runtime/agent/tools.js';
import { chooseToolset } from '../../src/runtime/computer/toolset.js';
import { BUILT_INS_ONLY, detectSandbox } from '../../src/sandbox/sandbox.js';
import { runSkillScript, STREAM_CAP_BYTES } from '../../src/sandbox/script-sandbox.js';
import { SCRIPT_LIMITS } from '../helpers/sandbox.js';

/**
 * The agent's tools against a hostile model and hostile skills: every path trick, link and
 * script below is a real attempt to get out, and must fail without the tool throwing.
 */
const here = await detectSandbox('auto');
const BWRAP = here.kind === 'bwrap';
const NO_BWRAP_REASON = `skipped: bubblewrap cannot run here (${here.warning ?? here.kind})`;
const ALL = ['list_files', 'read_file', 'write_file', 'run_script'];
const LIMITS = SCRIPT_LIMITS;

let root: string;
let skillDir: string;
let outputDir: string;
/** Stands for the server's data folder: outside both the skill and the output. */
let dataDir: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'skillet-agent-tools-'));
  [skillDir, outputDir, dataDir] = ['skill', 'output', 'data'].map((name) => path.join(root, name)) as [string, string, string];
  await Promise.all([mkdir(path.join(skillDir, 'scripts'), { recursive: true }), mkdir(outputDir), mkdir(dataDir)]);
  await put('SKILL.md', '---\nname: tester\ndescription: tests\n---\nUse references/style.md.\n');
  await put('references/style.md', 'Write plainly.\n');
  await writeFile(path.join(dataDir, 'secret.txt'), 'the server secret');
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function put(rel: string, content: string | Buffer): Promise<string> {
  const file = path.join(skillDir, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  const sandbox = BWRAP ? here : { ...BUILT_INS_ONLY, runsUntrusted: true };
  const signal = new AbortController().signal;
  return { skillDir, outputDir, allowed: ALL, sandbox, limits: LIMITS, builtIn: false, signal, ...overrides };
}

const call = (name: string, input: Record<string, unknown>, overrides: Partial<ToolContext> = {}) =>
  runAgentTool({ name, input }, context(overrides));

/** Everything under the data folder, with sizes and times: it must not change. */
async function dataSnapshot(): Promise<string[]> {
  const entries = await readdir(dataDir, { recursive: true, withFileTypes: true });
  const listed = await Promise.all(
    entries.map(async (entry) => {
      const info = await stat(path.join(entry.parentPath, entry.name));
      return `${entry.name} ${info.size} ${info.mtimeMs}`;
    }),
  );
  return listed.sort();
}

describe('the tools offered', () => {
  it('offers the four file tools by name with JSON-schema inputs, and narrows them to allowed-tools, ignoring names not ours', () => {
    const all = agentToolSpecs(chooseToolset(ALL, false).names);
    expect(all.map((spec) => spec.name)).toEqual(ALL);
    for (const spec of all) expect(spec.inputSchema.type).toBe('object');
    expect(all.find((spec) => spec.name === 'run_script')?.inputSchema.required).toEqual(['path']);
    expect(
      agentToolSpecs(chooseToolset(['write_file', 'Shell', 'read_file', 'read_file'], false).names).map((spec) => spec.name),
    ).toEqual(['read_file', 'write_file']);
    expect(agentToolSpecs([])).toEqual([]);
  });

  it('labels calls for people, without control characters', () => {
    expect(toolLabel({ name: 'write_file', input: { path: 'report.md' } })).toBe('Writing report.md');
    expect(toolLabel({ name: 'read_file', input: { path: 'skill/references/style.md' } })).toBe('Reading references/style.md');
    expect(toolLabel({ name: 'run_script', input: { path: 'scripts/stats.py' } })).toBe('Running scripts/stats.py');
    expect(toolLabel({ name: 'list_files', input: {} })).toBe('Listing files');
    expect(toolLabel({ name: 'read_file', input: { path: 42 } })).toBe('Reading a file');
    expect(toolLabel({ name: 'write_file', input: { path: 'a\u001b[2Jb\nc' } })).toBe('Writing a [2Jb c');
  });
});

describe('calls the model gets wrong', () => {
  it('answers each with an error for the model, never a throw', async () => {
    const cases: [string, Record<string, unknown>, RegExp, Partial<ToolContext>?][] = [
      ['delete_everything', {}, /no tool "delete_everything"/],
      ['write_file', { path: 'a.md', content: 'x' }, /not allowed for this skill/, { allowed: ['read_file'] }],
      ['read_file', { _invalid_json: '{"path": "a' }, /not a valid JSON object/],
      ['read_file', {}, /`path` is required/],
      ['read_file', { path: 7 }, /`path` is required and must be a string/],
      ['write_file', { path: 'a.md' }, /`content` is required/],
      ['write_file', { path: 'a.md', content: { text: 'x' } }, /`content`/],
      ['run_script', { path: 'scripts/a.py', args: 'not-an-array' }, /`args` must be an array of strings/],
      ['run_script', { path: 'scripts/a.py', args: [1, 2] }, /`args` must be an array of strings/],
      ['run_script', { path: 'scripts/a.py', stdin: 5 }, /`stdin` must be a string/],
      ['read_file', { path: 'nothing-here.md' }, /no file "nothing-here.md"/],
    ];
    for (const [name, input, message, overrides] of cases) {
      expect(await call(name, input, overrides)).toEqual({ output: expect.stringMatching(message), isError: true });
    }
  });
});

describe('listing, reading and writing', () => {
  it('lists the skill and the output with their prefixes', async () => {
    await writeFile(path.join(outputDir, 'draft.md'), 'abc');
    const { output, isError } = await call('list_files', {});
    expect(isError).toBe(false);
    expect(output).toContain('skill/SKILL.md (');
    expect(output).toContain('skill/references/style.md (15 bytes)');
    expect(output).toContain('output/draft.md (3 bytes)');
  });

  it('reads the skill with or without its prefix, and the output with its own', async () => {
    expect(await call('read_file', { path: 'skill/references/style.md' })).toEqual({
      output: 'Write plainly.\n',
      isError: false,
    });
    expect((await call('read_file', { path: 'references/style.md' })).output).toBe('Write plainly.\n');
    await call('write_file', { path: 'notes/today.md', content: 'été' });
    expect((await call('read_file', { path: 'output/notes/today.md' })).output).toBe('été');
    expect((await call('read_file', { path: 'notes/today.md' })).output).toBe('été');
  });

  it('cuts a large file to 64 KB with a note, and will not show a binary one', async () => {
    await put('big.txt', 'a'.repeat(200_000));
    const big = await call('read_file', { path: 'big.txt' });
    expect(big.output.startsWith('a'.repeat(65_536))).toBe(true);
    expect(big.output).toMatch(/\[cut: "big.txt" has 200000 bytes; only the first 65536 are shown\]$/);
    await put('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff]));
    expect(await call('read_file', { path: 'logo.png' })).toEqual({
      output: expect.stringMatching(/binary file/),
      isError: true,
    });
  });

  it('writes into the output, creating folders and replacing files; never into the skill', async () => {
    expect(await call('write_file', { path: 'report.md', content: 'one' })).toEqual({
      output: expect.any(String),
      isError: false,
    });
    await call('write_file', { path: 'output/report.md', content: 'two' });
    await call('write_file', { path: 'charts/deep/data.csv', content: 'a,b' });
    expect(await readFile(path.join(outputDir, 'report.md'), 'utf8')).toBe('two');
    expect(await readFile(path.join(outputDir, 'charts/deep/data.csv'), 'utf8')).toBe('a,b');
    expect(await call('write_file', { path: 'skill/SKILL.md', content: 'pwned' })).toMatchObject({ isError: true });
    expect(await readFile(path.join(skillDir, 'SKILL.md'), 'utf8')).toContain('name: tester');
  });

  it('holds the output byte and file limits, counting a replaced file once', async () => {
    const limits = { ...LIMITS, outputLimitBytes: 1000, outputFileLimit: 3 };
    expect((await call('write_file', { path: 'a.txt', content: 'x'.repeat(600) }, { limits })).isError).toBe(false);
    const over = await call('write_file', { path: 'b.txt', content: 'x'.repeat(600) }, { limits });
    expect(over).toEqual({ output: expect.stringMatching(/1200 bytes, over its limit of 1000/), isError: true });
    expect(existsSync(path.join(outputDir, 'b.txt'))).toBe(false);
    expect((await call('write_file', { path: 'a.txt', content: 'x'.repeat(900) }, { limits })).isError).toBe(false);
    expect((await call('write_file', { path: 'b.txt', content: 'b' }, { limits })).isError).toBe(false);
    const tooMany = await call('write_file', { path: 'sub/c.txt', content: 'c' }, { limits });
    expect(tooMany).toEqual({ output: expect.stringMatching(/4 files and folders, over its limit of 3/), isError: true });
    expect(existsSync(path.join(outputDir, 'sub'))).toBe(false);
  });
});

describe('paths that try to get out', () => {
  const escapes = [
    '../data/secret.txt',
    'skill/../../data/secret.txt',
    'output/../skill/SKILL.md',
    '/etc/passwd',
    'a\0b',
    '//etc/passwd',
  ];

  it('refuses `..`, absolute paths and NUL bytes for every tool', async () => {
    const before = await dataSnapshot();
    for (const bad of escapes) {
      expect(await call('read_file', { path: bad })).toMatchObject({ isError: true });
      expect(await call('write_file', { path: bad, content: 'pwned' })).toMatchObject({ isError: true });
      expect(await call('run_script', { path: bad })).toMatchObject({ isError: true });
    }
    expect(await dataSnapshot()).toEqual(before);
    expect(existsSync('/etc/pwned')).toBe(false);
  });

  it('will not follow a link in the skill folder out of it, but follows one inside it', async () => {
    await symlink('/etc/passwd', path.join(skillDir, 'passwd'));
    await symlink(dataDir, path.join(skillDir, 'references/data'));
    await symlink('style.md', path.join(skillDir, 'references/alias.md'));
    expect(await call('read_file', { path: 'passwd' })).toEqual({
      output: expect.stringMatching(/leads outside/),
      isError: true,
    });
    expect((await call('read_file', { path: 'references/data/secret.txt' })).output).not.toContain('server secret');
    expect((await call('read_file', { path: 'references/alias.md' })).output).toBe('Write plainly.\n');
  });

  it('will not write through a link in the output, to a file or a folder, nor truncate its target', async () => {
    const before = await dataSnapshot();
    await symlink(path.join(dataDir, 'secret.txt'), path.join(outputDir, 'report.md'));
    await symlink(dataDir, path.join(outputDir, 'evil'));
    await symlink(path.join(dataDir, 'new.txt'), path.join(outputDir, 'dangling.md'));
    for (const target of ['report.md', 'evil/secret.txt', 'evil/new.txt', 'dangling.md', 'evil/deeper/x.txt']) {
      expect(await call('write_file', { path: target, content: 'pwned' })).toMatchObject({ isError: true });
    }
    expect(await call('read_file', { path: 'output/evil/secret.txt' })).toMatchObject({ isError: true });
    const { output } = await call('list_files', {});
    expect(output).toContain('output/evil (symbolic link)');
    expect(output).not.toContain('secret.txt');
    expect(await dataSnapshot()).toEqual(before);
  });

  it('does not hang on a FIFO planted in the output', async () => {
    execFileSync('mkfifo', [path.join(outputDir, 'pipe')]);
    expect(await call('read_file', { path: 'output/pipe' })).toEqual({
      output: expect.stringMatching(/not a regular file/),
      isError: true,
    });
    expect(await call('write_file', { path: 'pipe', content: 'x' })).toMatchObject({ isError: true });
  });

  it('runs only regular .js, .mjs, .py and .sh files under scripts/', async () => {
    await put('scripts/tool.rb', 'puts 1');
    await put('helper.py', 'print(1)');
    await symlink('/etc/passwd', path.join(skillDir, 'scripts/passwd.sh'));
    await symlink('../helper.py', path.join(skillDir, 'scripts/helper.py'));
    const cases: [string, RegExp][] = [
      ['scripts/tool.rb', /only .js, .mjs, .py and .sh/],
      ['helper.py', /not a file under the skill's scripts\/ folder/],
      ['scripts/helper.py', /not a file under the skill's scripts\/ folder/],
      ['scripts/passwd.sh', /not a file under the skill's scripts\/ folder/],
      ['scripts/missing.py', /no file "scripts\/missing.py"/],
      ['output/x.py', /Only scripts of the skill's scripts\/ folder/],
    ];
    for (const [script, message] of cases) {
      expect(await call('run_script', { path: script })).toEqual({ output: expect.stringMatching(message), isError: true });
    }
    await rm(path.join(skillDir, 'scripts'), { recursive: true });
    await symlink('/usr/bin', path.join(skillDir, 'scripts'));
    expect(await call('run_script', { path: 'scripts/env.sh' })).toMatchObject({ isError: true });
  });
});

/** Processes whose command line holds `marker`: what a killed script must not leave behind. */
async function survivors(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) found.push(Number(pid));
  }
  return found;
}

describe('without bubblewrap', () => {
  const request = (script: string) => ({ skillDir, scriptPath: script, args: [], stdin: '', outputDir });
  const signal = new AbortController().signal;

  it('refuses scripts of installed skills, and Python and bash even for built-in ones, naming how to enable the sandbox', async () => {
    await put('scripts/a.js', 'console.log(1)');
    await put('scripts/a.py', 'print(1)');
    await put('scripts/a.sh', 'echo 1');
    const refusal = /sandbox is not available.*apt-get install bubblewrap.*SKILL_SANDBOX=none/;
    await expect(runSkillScript(request('scripts/a.js'), BUILT_INS_ONLY, { ...LIMITS, builtIn: false }, signal)).rejects.toThrow(
      refusal,
    );
    await expect(runSkillScript(request('scripts/a.py'), BUILT_INS_ONLY, { ...LIMITS, builtIn: true }, signal)).rejects.toThrow(
      refusal,
    );
    await expect(runSkillScript(request('scripts/a.sh'), BUILT_INS_ONLY, { ...LIMITS, builtIn: true }, signal)).rejects.toThrow(
      refusal,
    );
    expect(await call('run_script', { path: 'scripts/a.py' }, { sandbox: BUILT_INS_ONLY })).toEqual({
      output: expect.stringMatching(refusal),
      isError: true,
    });
  });

  it("runs a built-in skill's .js on Node's permission model: the output only", async () => {
    await put(
      'scripts/probe.js',
      `const fs = require('node:fs');
       fs.writeFileSync('made.txt', 'ok');
       for (const f of ['/etc/passwd', ${JSON.stringify(path.join(dataDir, 'secret.txt'))}]) {
         try { fs.readFileSync(f); console.log('READ ' + f); } catch (e) { console.log('denied ' + e.code); }
       }
       try { fs.writeFileSync(${JSON.stringify(path.join(dataDir, 'x'))}, 'x'); console.log('WROTE'); } catch (e) { console.log('denied ' + e.code); }
       try { require('node:child_process').execSync('id'); console.log('SPAWNED'); } catch (e) { console.log('denied ' + e.code); }`,
    );
    const sandbox: SkillSandbox = { ...BUILT_INS_ONLY, prlimit: here.prlimit };
    const result = await runSkillScript(request('scripts/probe.js'), sandbox, { ...LIMITS, builtIn: true }, signal);
    expect(result).toMatchObject({ exitCode: 0, stderr: '' });
    expect(result.stdout).not.toMatch(/READ|WROTE|SPAWNED/);
    expect(result.stdout.match(/denied ERR_ACCESS_DENIED/g)).toHaveLength(4);
    expect(await readFile(path.join(outputDir, 'made.txt'), 'utf8')).toBe('ok');
  });

  it.skipIf(!existsSync('/usr/bin/setsid'))(
    'with SKILL_SANDBOX=none, stops waiting for pipes a daemon of the script holds',
    async () => {
      const marker = `skillet-daemon-${randomUUID()}`;
      await put('scripts/daemon.sh', `setsid bash -c 'exec -a ${marker} sleep 30' &\necho started`);
      const started = Date.now();
      const unconfined = { ...BUILT_INS_ONLY, runsUntrusted: true };
      try {
        const result = await runSkillScript(request('scripts/daemon.sh'), unconfined, { ...LIMITS, builtIn: false }, signal);
        expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n' });
        expect(Date.now() - started).toBeLessThan(6000);
      } finally {
        for (const pid of await survivors(marker)) process.kill(pid, 'SIGKILL'); // unconfined means just that
      }
    },
  );

  it('answers a call made after the run was stopped without running anything', async () => {
    await put('scripts/ok.sh', 'touch ran');
    const controller = new AbortController();
    controller.abort();
    expect(await call('run_script', { path: 'scripts/ok.sh' }, { signal: controller.signal })).toEqual({
      output: 'The run was stopped.',
      isError: true,
    });
    expect(existsSync(path.join(outputDir, 'ran'))).toBe(false);
  });
});

describe.skipIf(!BWRAP)(`scripts in bubblewrap${BWRAP ? '' : ` (${NO_BWRAP_REASON})`}`, () => {
  let listener: Server;
  let port = 0;
  beforeAll(async () => {
    listener = createServer((socket) => socket.end('hello'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const address = listener.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  it.each([
    [
      'py',
      'import sys, os\ndata = sys.stdin.read()\nprint("args", sys.argv[1:], "stdin", data, "cwd", os.getcwd())\nsys.stderr.write("warned\\n")\nopen("made.txt", "w").write("made")\nsys.exit(3)\n',
    ],
    ['sh', 'data=$(cat)\necho "args [$1 $2] stdin $data cwd $PWD"\necho warned >&2\nprintf made > made.txt\nexit 3\n'],
    [
      'js',
      "const fs = require('node:fs');\nconst data = fs.readFileSync(0, 'utf8');\nconsole.log('args', process.argv.slice(2), 'stdin', data, 'cwd', process.cwd());\nconsole.error('warned');\nfs.writeFileSync('made.txt', 'made');\nprocess.exitCode = 3;\n",
    ],
    [
      'mjs',
      "import fs from 'node:fs';\nconst data = fs.readFileSync(0, 'utf8');\nconsole.log('args', process.argv.slice(2), 'stdin', data, 'cwd', process.cwd());\nconsole.error('warned');\nfs.writeFileSync('made.txt', 'made');\nprocess.exitCode = 3;\n",
    ],
  ])('runs a .%s script: exit code, stdout, stderr, args, stdin, cwd = the output', async (extension, source) => {
    await put(`scripts/probe.${extension}`, source);
    const input = { path: `scripts/probe.${extension}`, args: ['one', '--two'], stdin: 'from-stdin' };
    const result = await runSkillScript(
      { skillDir, scriptPath: input.path, args: input.args, stdin: input.stdin, outputDir },
      here,
      { ...LIMITS, builtIn: false },
      new AbortController().signal,
    );
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toMatch(/args.*one.*--two.*stdin.*from-stdin.*cwd/s);
    expect(result.stdout).toContain(`cwd ${await import('node:fs/promises').then((fs) => fs.realpath(outputDir))}`);
    expect(result.stderr.trim()).toBe('warned');
    expect(await readFile(path.join(outputDir, 'made.txt'), 'utf8')).toBe('made');
    const viaTool = await call('run_script', input);
    expect(viaTool).toEqual({ output: expect.stringMatching(/^exit code: 3\nstdout:\nargs.*\nstderr:\nwarned/s), isError: true });
  });

  it('answers a script that succeeds without an error', async () => {
    await put('scripts/ok.sh', 'echo fine');
    expect(await call('run_script', { path: 'skill/scripts/ok.sh' })).toEqual({
      output: 'exit code: 0\nstdout:\nfine\n\nstderr:\n',
      isError: false,
    });
  });

  it('reaches no network: not this machine (a listening port, 5432, Unix sockets) nor the internet', async () => {
    await put(
      'scripts/dial.py',
      `import socket\nfor host, p in [("127.0.0.1", ${port}), ("127.0.0.1", 5432), ("::1", ${port}), ("1.1.1.1", 53), ("1.1.1.1", 443)]:\n    try:\n        socket.create_connection((host, p), timeout=3); print("CONNECTED", host, p)\n    except OSError as e: print("failed", host, p, e.errno)\nfor path in ["/var/run/postgresql/.s.PGSQL.5432", "/run/redis/redis-server.sock"]:\n    s = socket.socket(socket.AF_UNIX)\n    try:\n        s.connect(path); print("CONNECTED", path)\n    except OSError as e: print("failed", path, e.errno)\n`,
    );
    await put(
      'scripts/dial.sh',
      `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED; exec 3<>/dev/tcp/1.1.1.1/80 && echo CONNECTED; echo done`,
    );
    await put(
      'scripts/dial.mjs',
      `import net from 'node:net';\nfor (const [host, p] of [['127.0.0.1', ${port}], ['1.1.1.1', 443]]) {\n  await new Promise((resolve) => { const s = net.connect(p, host); s.setTimeout(3000, () => { console.log('timed out'); s.destroy(); resolve(); }); s.once('connect', () => { console.log('CONNECTED'); s.destroy(); resolve(); }); s.once('error', (e) => { console.log('failed', e.code); resolve(); }); });\n}\n`,
    );
    for (const script of ['scripts/dial.py', 'scripts/dial.sh', 'scripts/dial.mjs']) {
      const { output } = await call('run_script', { path: script });
      expect(output).not.toContain('CONNECTED');
      expect(output).toMatch(/failed|No such file|unreachable|refused/);
    }
  });

  it('cannot read /etc/shadow, the server data folder or its code, nor write outside the output', async () => {
    const before = await dataSnapshot();
    const hostTmp = path.join(root, `escaped-${randomUUID()}`);
    const targets = ['/etc/shadow', '/etc/passwd', path.join(dataDir, 'secret.txt'), path.join(PROJECT_ROOT, 'package.json')];
    const writes = [path.join(dataDir, 'x.txt'), path.join(skillDir, 'SKILL.md'), path.join(skillDir, 'new.txt'), hostTmp];
    const snoop = [
      'import os',
      `for f in ${JSON.stringify(targets)}:`,
      '    try: print("READ", f, open(f).read()[:20])',
      '    except OSError as e: print("failed", f, e.strerror)',
      `for f in ${JSON.stringify(writes)}:`,
      '    try: open(f, "w").write("pwned"); print("wrote", f)',
      '    except OSError as e: print("failed", f, e.strerror)',
      'print("usr", sorted(os.listdir("/usr")), "etc", sorted(os.listdir("/etc")))',
    ];
    await put('scripts/snoop.py', snoop.join('\n'));
    const { output } = await call('run_script', { path: 'scripts/snoop.py' });
    expect(output).not.toContain('READ');
    expect(output.match(/^failed/gm)?.length).toBeGreaterThanOrEqual(7);
    // Where servers are installed (/usr/local, /usr/src) and the rest of /etc are not even there.
    expect(output).toMatch(/^usr \['bin', 'lib'.*\] etc \['alternatives'\]$/m);
    expect(output).not.toMatch(/'local'|'src'/);
    expect(await dataSnapshot()).toEqual(before);
    expect(await readFile(path.join(skillDir, 'SKILL.md'), 'utf8')).toContain('name: tester');
    expect(existsSync(path.join(skillDir, 'new.txt'))).toBe(false);
    expect(existsSync(hostTmp)).toBe(false); // a write to /tmp lands in the sandbox's own, thrown away
  });

  it('hides the server folder when a system folder holds it (as an install under /usr/share would be)', async () => {
    const serverDir = process.cwd();
    vi.resetModules();
    process.chdir('/usr/share/doc'); // the server's working folder, read when the module loads
    const fresh = await import('../../src/sandbox/script-sandbox.js').finally(() => process.chdir(serverDir));
    await put('scripts/look.sh', 'ls -A /usr/share/doc | wc -l; ls -A /usr/share | wc -l; touch /usr/share/doc/x');
    const request = { skillDir, scriptPath: 'scripts/look.sh', args: [], stdin: '', outputDir };
    const result = await fresh.runSkillScript(request, here, { ...LIMITS, builtIn: false }, new AbortController().signal);
    expect(result.stdout).toMatch(/^0\n[1-9]\d*\n$/);
    expect(result.stderr).toMatch(/Read-only file system/);
  });

  it('plants links in the output that the tools then refuse to follow', async () => {
    const before = await dataSnapshot();
    await put(
      'scripts/plant.sh',
      `ln -s ${dataDir} evil\nln -s ${path.join(dataDir, 'secret.txt')} report.md\nln -s /etc etc\necho planted`,
    );
    expect((await call('run_script', { path: 'scripts/plant.sh' })).output).toContain('planted');
    for (const target of ['evil/secret.txt', 'evil/new.txt', 'report.md', 'etc/passwd']) {
      expect(await call('write_file', { path: target, content: 'pwned' })).toMatchObject({ isError: true });
    }
    for (const target of ['output/evil/secret.txt', 'output/report.md', 'output/etc/passwd']) {
      expect(await call('read_file', { path: target })).toEqual({
        output: expect.stringMatching(/leads outside/),
        isError: true,
      });
    }
    expect(await dataSnapshot()).toEqual(before);
  });

  it('kills a script that forks past the process limit, leaving no process behind', async () => {
    const marker = `skillet-forker-${randomUUID()}`;
    await put('scripts/forks.sh', `for i in $(seq 200); do (exec -a ${marker} sleep 300) & done\nwait`);
    const limits = { ...LIMITS, processLimit: 8 };
    const result = await call('run_script', { path: 'scripts/forks.sh' }, { limits });
    expect(result).toEqual({
      output: expect.stringMatching(/killed: it started more processes than its limit of 8/),
      isError: true,
    });
    expect(await survivors(marker)).toEqual([]);
  });

  it('cuts 10 MB of stdout and stderr to 32 KB each, saying so', async () => {
    await put('scripts/flood.py', 'import sys\nsys.stdout.write("o" * 10485760)\nsys.stderr.write("e" * 10485760)\n');
    const result = await runSkillScript(
      { skillDir, scriptPath: 'scripts/flood.py', args: [], stdin: '', outputDir },
      here,
      { ...LIMITS, builtIn: false },
      new AbortController().signal,
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('o'.repeat(STREAM_CAP_BYTES));
    expect(result.stderr).toBe('e'.repeat(STREAM_CAP_BYTES));
    expect(result.note).toMatch(/stdout was cut to its first 32768 bytes \(the script printed 10485760\).*stderr was cut/);
  });

  it('keeps memory bounded while a script prints 300 MB', async () => {
    await put('scripts/firehose.sh', 'head -c 300000000 /dev/zero | tr "\\0" x');
    let peak = 0;
    const start = process.memoryUsage().rss;
    const sampling = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss - start);
    }, 10);
    const { output } = await call('run_script', { path: 'scripts/firehose.sh' });
    clearInterval(sampling);
    expect(output).toContain('the script printed 300000000');
    expect(peak).toBeLessThan(100 * 1024 * 1024);
  });

  it('kills a script that runs forever at the time limit, and when the run is stopped', async () => {
    const marker = `skillet-spinner-${randomUUID()}`;
    await put('scripts/spin.sh', `(exec -a ${marker} sleep 300) &\nwhile true; do :; done`);
    let started = Date.now();
    const timedOut = await call('run_script', { path: 'scripts/spin.sh' }, { limits: { ...LIMITS, timeoutMs: 1500 } });
    expect(timedOut).toEqual({ output: expect.stringMatching(/killed: it ran past its time limit of 1500 ms/), isError: true });
    expect(Date.now() - started).toBeLessThan(6000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    started = Date.now();
    const stopped = await call('run_script', { path: 'scripts/spin.sh' }, { signal: controller.signal });
    expect(stopped).toEqual({ output: expect.stringMatching(/killed: the run was stopped/), isError: true });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await survivors(marker)).toEqual([]);
  });

  it('stops a script writing past the output limit, and reports the breach', async () => {
    await put('scripts/fill.py', 'open("big.bin", "wb").write(b"x" * 3_000_000)\nprint("wrote")\n');
    const result = await call('run_script', { path: 'scripts/fill.py' });
    expect(result.isError).toBe(true);
    expect(result.output).not.toContain('wrote');
    expect((await stat(path.join(outputDir, 'big.bin'))).size).toBeLessThanOrEqual(LIMITS.outputLimitBytes);
    await put('scripts/many.sh', 'for i in $(seq 60); do echo $i > f$i.txt; done; echo done');
    const many = await call('run_script', { path: 'scripts/many.sh' });
    expect(many).toEqual({
      output: expect.stringMatching(/output folder (went over its limit of 50 files|is over its limits)/),
      isError: true,
    });
  });
});
