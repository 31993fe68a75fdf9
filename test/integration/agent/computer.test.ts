import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, onTestFinished } from 'vitest';
import { done, eventOf, resultsSent, runAgent, stopReasonOf, use, withAgentServer } from '../../helpers/agent.js';
import { session, signUp } from '../../helpers/factories.js';
import { BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE } from '../../helpers/sandbox.js';

// Warm computers on: after the first run each takes one the pool started (computer-pool.ts).
const it = withAgentServer({ COMPUTER_POOL_SIZE: '2' });

/**
 * The computer of DESIGN §14 through the real server: a fake Anthropic scripts the model's
 * calls, and the tool results it is sent back are what the computer answered.
 */
describe.runIf(BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE)('the computer of an agent run', () => {
  it('keeps the shell between calls: working folder, exported variables and files', async ({ api, anthropic, person }) => {
    const before = anthropic.requests.length;
    anthropic.plan(
      use('a', 'bash', { command: 'mkdir -p notes && cd notes && export GREETING=hello && echo made > kept.txt' }),
      use('b', 'bash', { command: 'pwd; echo "$GREETING"; cat kept.txt; echo "$HOME"' }),
      use('c', 'bash', { command: 'exit 3' }),
      use('d', 'bash', { command: 'pwd; echo "[$GREETING]"; cat /workspace/notes/kept.txt' }),
      done,
    );
    const events = await runAgent(api, person, 'shout-files', 'anything');
    expect(stopReasonOf(events)).toBe('end_turn');
    const sent = resultsSent(anthropic, before);
    expect(sent.get('a')).toEqual({ text: 'exit code 0', isError: false });
    expect(sent.get('b')?.text).toBe('/workspace/notes\nhello\nmade\n/workspace\nexit code 0');
    // The shell exited: a new one starts in /workspace, variables gone, files kept.
    expect(sent.get('c')?.isError).toBe(true);
    expect(sent.get('c')?.text).toMatch(/a new one was started in \/workspace/);
    expect(sent.get('d')?.text).toBe('/workspace\n[]\nmade\nexit code 0');
    expect(events.filter((event) => event.type === 'agent.tool_use').map((event) => event.payload.label)).toContain(
      'Running pwd; echo "$GREETING"; cat kept.txt; echo "$HOME"',
    );
  });

  it('round-trips write, edit, read, glob and grep, and what lands in the outputs folder is the artifact', async ({
    api,
    anthropic,
    person,
  }) => {
    const before = anthropic.requests.length;
    anthropic.plan(
      use('w', 'write', { path: 'draft/plan.md', content: 'step one\nstep two\n' }),
      use('e', 'edit', { path: '/workspace/draft/plan.md', old_string: 'two', new_string: 'three' }),
      use('r', 'read', { path: 'draft/plan.md' }),
      use('g', 'glob', { pattern: '**/*.md' }),
      use('s', 'grep', { pattern: 'three$', glob: '*.md' }),
      use('x', 'edit', { path: 'draft/plan.md', old_string: 'step', new_string: 'stage' }),
      use('o', 'bash', { command: 'cp draft/plan.md /mnt/session/outputs/plan.md && ls /mnt/user-data/outputs' }),
      done,
    );
    const events = await runAgent(api, person, 'shout-files', 'anything');
    const sent = resultsSent(anthropic, before);
    expect(sent.get('w')?.text).toBe('Wrote 18 bytes to /workspace/draft/plan.md.');
    expect(sent.get('e')?.text).toBe('Replaced 1 occurrence in /workspace/draft/plan.md.');
    expect(sent.get('r')?.text).toBe('     1\tstep one\n     2\tstep three');
    expect(sent.get('g')?.text).toBe('/workspace/draft/plan.md');
    expect(sent.get('s')?.text).toBe('/workspace/draft/plan.md:2:step three');
    expect(sent.get('x')).toEqual({ text: expect.stringMatching(/2 times/), isError: true });
    expect(sent.get('o')?.text).toBe('plan.md\nexit code 0');
    const result = eventOf(events, 'execution.result')?.payload;
    const file = await api.get(`/api/v1/artifacts/${String(result?.artifactId)}/file/plan.md`, { headers: session(person) });
    expect(file.text).toBe('step one\nstep three\n');
  });

  it('runs a skill written the way public skills are: its own script from /mnt/skills with bash', async ({
    api,
    anthropic,
    person,
  }) => {
    const before = anthropic.requests.length;
    const script = 'python3 /mnt/skills/shout-files/scripts/shout.py "hello there" | tee /mnt/session/outputs/shout.txt';
    anthropic.plan(use('p', 'bash', { command: script }), done);
    const events = await runAgent(api, person, 'shout-files', 'hello there');
    expect(String(anthropic.requests[before]?.body.system)).toContain('/mnt/skills/shout-files/');
    expect(resultsSent(anthropic, before).get('p')?.text).toBe('HELLO THERE!\nexit code 0');
    const result = eventOf(events, 'execution.result')?.payload;
    const file = await api.get(`/api/v1/artifacts/${String(result?.artifactId)}/file/shout.txt`, { headers: session(person) });
    expect(file.text).toBe('HELLO THERE!\n');
  });

  it('hands an image read to the model as a picture, and cuts a long output to 30 KB with a note', async ({
    api,
    anthropic,
    person,
  }) => {
    const before = anthropic.requests.length;
    const png = "python3 -c \"from PIL import Image; Image.new('RGB', (4, 4), 'red').save('/workspace/red.png')\"";
    anthropic.plan(
      use('p', 'bash', { command: png }),
      use('i', 'read', { path: 'red.png' }),
      use('l', 'bash', { command: 'head -c 100000 /dev/zero | tr "\\0" x' }),
      done,
    );
    await runAgent(api, person, 'shout-files', 'anything');
    const messages = anthropic.requests.at(-1)?.body.messages as { content: unknown }[];
    const results = messages.flatMap((message) =>
      Array.isArray(message.content) ? (message.content as { type: string; tool_use_id?: string; content?: unknown }[]) : [],
    );
    const image = results.find((block) => block.tool_use_id === 'i')?.content as {
      type: string;
      source?: { media_type: string };
    }[];
    expect(image.map((block) => block.type)).toEqual(['image', 'text']);
    expect(image[0]?.source?.media_type).toBe('image/png');
    const long = String(results.find((block) => block.tool_use_id === 'l')?.content);
    expect(long).toMatch(/^x{30000}/);
    expect(long.length).toBeLessThan(31 * 1024);
    expect(long).toMatch(/stdout was cut to its first 30720 bytes \(the command printed 100000\)/);
    expect(anthropic.requests.length - before).toBe(4);
  });

  it('refuses the system calls of the seccomp filter to a command the model runs', async ({ api, anthropic, person }) => {
    const before = anthropic.requests.length;
    // ptrace(PTRACE_TRACEME) and unshare(0) succeed for any process without the filter.
    const probe = [
      'import ctypes, platform',
      'libc = ctypes.CDLL(None, use_errno=True)',
      "x64 = platform.machine() == 'x86_64'",
      "for name, nr in (('ptrace', 101 if x64 else 117), ('unshare', 272 if x64 else 97), ('getpid', 39 if x64 else 172)):",
      '    ctypes.set_errno(0)',
      '    print(name, 0 if libc.syscall(nr, 0, 0, 0, 0) >= 0 else ctypes.get_errno())',
    ].join('\n');
    anthropic.plan(use('t', 'bash', { command: `python3 -c '${probe.replaceAll("'", "'\\''")}'` }), done);
    await runAgent(api, person, 'shout-files', 'anything');
    expect(resultsSent(anthropic, before).get('t')?.text).toBe('ptrace 1\nunshare 1\ngetpid 0\nexit code 0');
  });

  it('keeps the skill folder, the uploads and the system read only', async ({ api, anthropic, person }) => {
    const before = anthropic.requests.length;
    anthropic.plan(
      use('k', 'write', { path: '/mnt/skills/shout-files/SKILL.md', content: 'taken over' }),
      use('u', 'bash', { command: 'touch /mnt/user-data/uploads/planted' }),
      use('r', 'bash', { command: 'echo x > /etc/planted || echo x > /usr/planted' }),
      use('s', 'bash', { command: 'cat /mnt/skills/shout-files/SKILL.md | head -2' }),
      done,
    );
    await runAgent(api, person, 'shout-files', 'anything');
    const sent = resultsSent(anthropic, before);
    expect(sent.get('k')).toEqual({ text: expect.stringMatching(/read-only folder/), isError: true });
    expect(sent.get('u')).toEqual({ text: expect.stringMatching(/Read-only file system/), isError: true });
    expect(sent.get('r')).toEqual({ text: expect.stringMatching(/Read-only file system/), isError: true });
    expect(sent.get('s')?.text).toBe('---\nname: shout-files\nexit code 0');
  });

  it('stops a command at its time limit and keeps the shell', async ({ api, anthropic, person }) => {
    const before = anthropic.requests.length;
    anthropic.plan(
      use('v', 'bash', { command: 'export KEPT=yes; cd /tmp' }),
      use('t', 'bash', { command: 'sleep 30', timeout_ms: 300 }),
      use('l', 'bash', { command: 'echo "$KEPT $(pwd)"' }),
      done,
    );
    await runAgent(api, person, 'shout-files', 'anything');
    const sent = resultsSent(anthropic, before);
    expect(sent.get('t')).toEqual({ text: expect.stringMatching(/time limit of 300 ms/), isError: true });
    expect(sent.get('l')?.text).toBe('yes /tmp\nexit code 0');
  });

  it('has no network: a port this host serves on (as the API does), PostgreSQL and Redis are out of reach', async ({
    api,
    anthropic,
    person,
  }) => {
    const before = anthropic.requests.length;
    const listener = createServer((socket) => socket.end('reached'));
    await once(listener.listen(0, '127.0.0.1'), 'listening');
    const { port } = listener.address() as { port: number };
    onTestFinished(() => void listener.close());
    const probe = (target: string) =>
      `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${target}), timeout=2)" 2>&1 | tail -1`;
    anthropic.plan(
      use('a', 'bash', { command: `${probe(String(port))}; ${probe('5432')}; ${probe('6379')}` }),
      use('d', 'bash', { command: 'getent hosts example.org || echo no-dns' }),
      done,
    );
    await runAgent(api, person, 'shout-files', 'anything');
    const sent = resultsSent(anthropic, before);
    expect(sent.get('a')?.text.match(/ConnectionRefusedError|Network is unreachable/g)?.length).toBe(3);
    expect(sent.get('d')?.text).toContain('no-dns');
  });
});

describe.runIf(BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE)('the computer held to the run limits', () => {
  it('ends a run whose fork bomb meets the process limit, and one whose CPU spreads over many calls', async ({
    anthropic,
    ownServer,
  }) => {
    const api = await ownServer({ SKILL_PROCESS_LIMIT: '16', SKILL_CPU_SECONDS: '1' });
    const person = await signUp(api);
    anthropic.forgetPlans();
    anthropic.plan(use('f', 'bash', { command: 'for i in $(seq 40); do sleep 5 & done; wait' }), done);
    const bomb = await runAgent(api, person, 'shout-files', 'anything');
    expect(stopReasonOf(bomb)).toBe('error');
    expect(String(eventOf(bomb, 'agent.info')?.payload.message)).toMatch(/more processes than its limit of 16/);

    const burn = use('b', 'bash', { command: 'timeout 0.6 sh -c "while :; do :; done"; true' });
    anthropic.forgetPlans();
    anthropic.plan(burn, burn, burn, burn, done);
    const spread = await runAgent(api, person, 'shout-files', 'anything');
    expect(stopReasonOf(spread)).toBe('error');
    expect(String(eventOf(spread, 'agent.info')?.payload.message)).toMatch(/CPU time limit of 1 seconds/);
  });
});
