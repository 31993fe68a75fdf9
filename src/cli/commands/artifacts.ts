import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { parse as parseDisposition } from 'content-disposition';
import type { Artifact } from '../../sdk/types.js';
import { printJson } from '../output.js';
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
async function download(global: GlobalOptions, artifactId: string, options: { output?: string }) {
  const client = await signedInClient(global);
  const response = await client.artifacts.download(artifactId);
  const target = options.output ?? fileNameOf(response.headers.get('content-disposition'), artifactId);
  const size = Number(response.headers.get('content-length') ?? Number.NaN);
  const bar =
    process.stderr.isTTY && size >= PROGRESS_FROM_BYTES
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
  process.stderr.write(`Saved ${target} (${received} bytes).\n`);
}

const line = (artifact: Artifact) =>
  `${artifact.id}  ${artifact.status.padEnd(9)} ${(artifact.bundleType ?? artifact.fileType).padEnd(24)} ${String(artifact.contentSize).padStart(9)} B  ${artifact.title.replace(/\s+/g, ' ').slice(0, 50)}`;

export function artifactCommands(program: Command, global: () => GlobalOptions): void {
  const artifacts = program
    .command('artifacts')
    .description('list your artifacts (and see the subcommands)')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const list = await (await signedInClient(global())).artifacts.list();
      if (options.json) return printJson(list);
      for (const artifact of list) process.stdout.write(`${line(artifact)}\n`);
    });

  artifacts
    .command('get <artifactId>')
    .description('show an artifact, with its manifest when it is a bundle')
    .action(async (artifactId: string) => {
      const client = await signedInClient(global());
      const artifact = await client.artifacts.get(artifactId);
      printJson(artifact.bundleType ? { ...artifact, manifest: await client.artifacts.manifest(artifactId) } : artifact);
    });

  artifacts
    .command('download <artifactId>')
    .description('save an artifact: its file, or its bundle as a ZIP')
    .option('-o, --output <path>', 'where to save it (default: the name the server suggests)')
    .action((artifactId: string, options: { output?: string }) => download(global(), artifactId, options));

  artifacts
    .command('publish <artifactId>')
    .description('make an artifact public; prints its public URL')
    .action(async (artifactId: string) => printJson(await (await signedInClient(global())).artifacts.publish(artifactId)));

  artifacts
    .command('unpublish <artifactId>')
    .description('take a published artifact down')
    .action(async (artifactId: string) => printJson(await (await signedInClient(global())).artifacts.unpublish(artifactId)));

  artifacts
    .command('rm <artifactId>')
    .description('delete an artifact for good')
    .action(async (artifactId: string) => printJson(await (await signedInClient(global())).artifacts.remove(artifactId)));
}
