import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import type { SkilletClient } from '../../sdk/client.js';
import type { InputFile } from '../../sdk/types.js';
import { CliError, EXIT, printJson, printTable, wantsJson } from '../output.js';
import { type GlobalOptions, signedInClient } from '../session.js';

/** The most the server lists at once. */
const PAGE = 100;

/** Checks a path names a readable file before anything is sent, so a typo fails at once and in plain words. */
async function sizeOf(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(`${file} is not a file. Give the path of a file to upload.`, EXIT.usage);
    return info.size;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(
      `Could not read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}. Check the path.`,
      EXIT.usage,
    );
  }
}

/** Uploads each file in turn, streamed from disk under its own name; answers their records in order. */
export async function uploadAll(client: SkilletClient, files: string[]): Promise<InputFile[]> {
  for (const file of files) await sizeOf(file);
  const uploaded: InputFile[] = [];
  for (const file of files) {
    const body = Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>;
    uploaded.push(await client.files.upload(path.basename(file), body as globalThis.ReadableStream<Uint8Array>));
  }
  return uploaded;
}

/** Every file of the workspace, page after page. */
async function allFiles(client: SkilletClient): Promise<InputFile[]> {
  const files: InputFile[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.files.list({ limit: PAGE, offset });
    files.push(...page.items);
    if (!page.hasMore) return files;
  }
}

const row = (file: InputFile) => [
  file.id,
  `${file.size} B`,
  file.mimeType,
  file.expiresAt === null ? 'kept (given to a run)' : file.expiresAt.slice(0, 10),
  file.filename,
];

export function fileCommands(program: Command, global: () => GlobalOptions): void {
  const files = program.command('files').description('files you upload for runs to read (see the subcommands)');

  files
    .command('upload <paths...>')
    .description('upload files for runs; prints the id of each, one a line')
    .option('--json', 'print the stored files as JSON')
    .action(async (paths: string[], _options: unknown, command: Command) => {
      const uploaded = await uploadAll(await signedInClient(global()), paths);
      if (wantsJson(command)) return printJson(uploaded);
      for (const file of uploaded) process.stdout.write(`${file.id}\n`);
      process.stderr.write(
        `Uploaded ${uploaded.length} file${uploaded.length === 1 ? '' : 's'}. Give ${uploaded.length === 1 ? 'it' : 'them'} to a run with --file, or they expire in 7 days.\n`,
      );
    });

  files
    .command('ls')
    .description('list your uploaded files, newest first')
    .option('--json', 'print the answer as JSON')
    .action(async (_options: unknown, command: Command) => {
      const list = await allFiles(await signedInClient(global()));
      if (wantsJson(command)) return printJson(list);
      printTable(['FILE', 'SIZE', 'TYPE', 'EXPIRES', 'NAME'], list.map(row));
    });

  files
    .command('rm <fileId>')
    .description('delete an uploaded file (runs that were given it keep their record)')
    .option('--json', 'print the answer as JSON')
    .action(async (fileId: string, _options: unknown, command: Command) => {
      const answer = await (await signedInClient(global())).files.remove(fileId);
      if (wantsJson(command)) return printJson(answer);
      process.stderr.write(`Deleted ${fileId}.\n`);
    });
}
