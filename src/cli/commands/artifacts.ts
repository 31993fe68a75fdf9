import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { parse as parseDisposition } from 'content-disposition';
import type { Artifact } from '../../sdk/types.js';
import { canRedraw, printJson, printTable, wantsJson } from '../output.js';
import { type GlobalOptions, signedInClient } from '../session.js';

/** Shown for downloads at least this large, on a terminal. */
const PROGRESS_FROM_BYTES = 1024 * 1024;

function fileNameOf(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  try {
    // Only the last path segment: a server never chooses where the file goes.
    return path.basename(parseDisposition(disposition).parameters.filename ?? fallback);
  } catch {
    return fallback;
  }
}

/** Writes the download to a temporary name first, so an interrupted one leaves no partial file. */
async function download(global: GlobalOptions, artifactId: string, options: { output?: string; json?: boolean }) {
  const client = await signedInClient(global);
  const response = await client.artifacts.download(artifactId);
  const target = options.output ?? fileNameOf(response.headers.get('content-disposition'), artifactId);
  const size = Number(response.headers.get('content-length') ?? Number.NaN);
  const bar =
    canRedraw(process.stderr) && !options.json && size >= PROGRESS_FROM_BYTES
      ? new SingleBar({ stream: process.stderr, format: ' {bar} {percentage}% | {value}/{total} bytes' })
      : undefined;
  bar?.start(size, 0);
  let received = 0;
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      bar?.update(received);
      done(null, chunk);
    },
  });
  const partial = `${target}.part`;
  try {
    await pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
      counting,
      createWriteStream(partial),
    );
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    bar?.stop();
  }
  if (options.json) printJson({ path: target, bytes: received });
  else process.stderr.write(`Saved ${target} (${received} bytes).\n`);
}

const row = (artifact: Artifact) => [
  artifact.id,
  artifact.status,
  artifact.bundleType ?? artifact.fileType,
  `${artifact.contentSize} B`,
  artifact.title.slice(0, 50),
];

export function artifactCommands(program: Command, global: () => GlobalOptions): void {
  const artifacts = program
    .command('artifacts')
    .description('list your artifacts (and see the subcommands)')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const list = await (await signedInClient(global())).artifacts.list();
      if (options.json) return printJson(list);
      printTable(['ARTIFACT', 'STATUS', 'TYPE', 'SIZE', 'TITLE'], list.map(row));
    });

  artifacts
    .command('get <artifactId>')
    .description('show an artifact, with its manifest when it is a bundle (JSON)')
    .option('--json', 'print the answer as JSON (the default here)')
    .action(async (artifactId: string) => {
      const client = await signedInClient(global());
      const artifact = await client.artifacts.get(artifactId);
      printJson(artifact.bundleType ? { ...artifact, manifest: await client.artifacts.manifest(artifactId) } : artifact);
    });

  artifacts
    .command('download <artifactId>')
    .description('save an artifact: its file, or its bundle as a ZIP')
    .option('-o, --output <path>', 'where to save it (default: the name the server suggests)')
    .option('--json', 'print {path, bytes} as JSON once saved')
    .action((artifactId: string, options: { output?: string }, command: Command) =>
      download(global(), artifactId, { ...options, json: wantsJson(command) }),
    );

  artifacts
    .command('publish <artifactId>')
    .description('make an artifact public; prints its public URL')
    .option('--json', 'print the answer as JSON')
    .action(async (artifactId: string, _options: unknown, command: Command) => {
      const published = await (await signedInClient(global())).artifacts.publish(artifactId);
      if (wantsJson(command)) return printJson(published);
      process.stdout.write(`${published.publicUrl}\n`);
    });

  artifacts
    .command('unpublish <artifactId>')
    .description('take a published artifact down')
    .option('--json', 'print the answer as JSON')
    .action(async (artifactId: string, _options: unknown, command: Command) => {
      const answer = await (await signedInClient(global())).artifacts.unpublish(artifactId);
      if (wantsJson(command)) return printJson(answer);
      process.stderr.write(`Unpublished ${artifactId}.\n`);
    });

  artifacts
    .command('rm <artifactId>')
    .description('delete an artifact for good')
    .option('--json', 'print the answer as JSON')
    .action(async (artifactId: string, _options: unknown, command: Command) => {
      const answer = await (await signedInClient(global())).artifacts.remove(artifactId);
      if (wantsJson(command)) return printJson(answer);
      process.stderr.write(`Deleted ${artifactId}.\n`);
    });
}
