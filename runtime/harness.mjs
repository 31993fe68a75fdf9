// Runs one script skill inside its sandboxed child process.
// Usage: node <permission flags> harness.mjs <entry module> <output folder> <output limit bytes>; input on stdin.
// An entry of "-" (a sandbox started ahead of its run, src/runtime/script/script-pool.ts) takes the
// entry module from the first line of stdin instead, the input being the rest.
// Everything the skill says reaches the runner as one JSON object per line on stdout;
// console output is moved to stderr so it cannot corrupt that channel.
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [entryArgument, outputDir, limitText] = process.argv.slice(2);
const outputLimit = Number(limitText);
let written = 0;

// A runner killed outright (SIGKILL) cannot stop its children: a skill whose runner is
// gone (its parent changes) stops by itself instead of writing on into the scratch folder.
const runner = process.ppid;
setInterval(() => {
  if (process.ppid !== runner) process.exit(1);
}, 250).unref();

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
for (const method of ['log', 'info', 'warn', 'error', 'debug']) {
  console[method] = (...args) => process.stderr.write(`${args.map(String).join(' ')}\n`);
}

async function readInput() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function outputPath(relativePath) {
  const normalized = path.posix.normalize(String(relativePath));
  if (normalized.startsWith('/') || normalized.startsWith('..') || normalized.includes('\0') || normalized === '.') {
    throw new Error(`not a file path inside the output folder: ${relativePath}`);
  }
  return { normalized, absolute: path.join(outputDir, normalized) };
}

const received = await readInput();
const firstLineEnd = entryArgument === '-' ? received.indexOf('\n') : -1;
const entry = entryArgument === '-' ? received.slice(0, firstLineEnd) : entryArgument;

const context = {
  input: entryArgument === '-' ? received.slice(firstLineEnd + 1) : received,
  message: (text) => send({ type: 'message', text: String(text) }),
  toolUse: (name, label) => send({ type: 'tool_use', name: String(name), label: String(label ?? name) }),
  thinking: () => send({ type: 'thinking' }),
  info: (message) => send({ type: 'info', message: String(message) }),
  result: (summary) => send({ type: 'result', summary: String(summary) }),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  async writeFile(relativePath, data) {
    const { normalized, absolute } = outputPath(relativePath);
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    if (written + size > outputLimit) throw new Error(`output limit of ${outputLimit} bytes exceeded`);
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, data);
    written += (await stat(absolute)).size;
    send({ type: 'file', path: normalized, size });
  },
};

const skill = await import(pathToFileURL(entry).href);
if (typeof skill.default !== 'function') throw new Error('the entry module must export a default function');
await skill.default(context);
