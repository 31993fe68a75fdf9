import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { EXIT, usageError } from '../output.js';
import { readAllStdin } from '../prompt.js';
import { type GlobalOptions, signedInClient } from '../session.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface ApiOptions {
  field: string[];
  header: string[];
  input?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** `--field k=v` values are typed like gh's `-F`: true, false, null and numbers are JSON, the rest strings. */
function typed(value: string): unknown {
  if (value === 'true' || value === 'false' || value === 'null') return JSON.parse(value);
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

function fieldsOf(fields: string[]): [string, string][] {
  return fields.map((field) => {
    const at = field.indexOf('=');
    if (at < 1) throw usageError(`--field takes key=value, not "${field}"`);
    return [field.slice(0, at), field.slice(at + 1)];
  });
}

function headersOf(headers: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const header of headers) {
    const at = header.indexOf(':');
    if (at < 1) throw usageError(`--header takes name:value, not "${header}"`);
    result[header.slice(0, at).trim().toLowerCase()] = header.slice(at + 1).trim();
  }
  return result;
}

/** A path under the API: `/api/v1/me` as given, `me` or `/me` as `/api/v1/me`. */
function pathOf(given: string): string {
  if (given.startsWith('/api/') || given.startsWith('/mcp') || given.startsWith('/oauth/')) return given;
  return `/api/v1/${given.replace(/^\/+/, '')}`;
}

/** The body as the server sent it: JSON re-printed (indented at a terminal), other text as is. */
function shown(text: string, stream: NodeJS.WriteStream, compact: boolean): string {
  if (text === '') return '';
  try {
    return `${JSON.stringify(JSON.parse(text), null, stream.isTTY && !compact ? 2 : undefined)}\n`;
  } catch {
    return text.endsWith('\n') ? text : `${text}\n`;
  }
}

async function call(global: GlobalOptions, method: string, given: string, options: ApiOptions): Promise<void> {
  const verb = method.toUpperCase();
  if (!METHODS.includes(verb)) throw usageError(`METHOD must be one of ${METHODS.join(', ')}, not "${method}"`);
  const fields = fieldsOf(options.field);
  const headers = headersOf(options.header);
  let path = pathOf(given);
  let body: string | undefined;
  // As with gh: fields are the query of a GET (or of any call whose body comes from --input), else a JSON body.
  if (verb === 'GET' || verb === 'HEAD' || options.input !== undefined) {
    if (fields.length > 0) path += `${path.includes('?') ? '&' : '?'}${new URLSearchParams(fields).toString()}`;
  } else if (fields.length > 0) {
    body = JSON.stringify(Object.fromEntries(fields.map(([key, value]) => [key, typed(value)])));
  }
  if (options.input !== undefined) body = options.input === '-' ? await readAllStdin() : await readFile(options.input, 'utf8');
  if (body !== undefined) headers['content-type'] ??= 'application/json';

  const client = await signedInClient(global);
  const response = await client.transport.raw(verb, path, body, headers);
  const text = await response.text();
  if (response.ok) {
    process.stdout.write(shown(text, process.stdout, options.json === true));
    return;
  }
  process.stderr.write(shown(text, process.stderr, options.json === true) || `HTTP ${response.status}\n`);
  process.exitCode = EXIT.failure;
}

export function apiCommand(program: Command, global: () => GlobalOptions): void {
  program
    .command('api <method> <path>')
    .description('make an authenticated call to the API and print the JSON answer (a path like /api/v1/me, or just me)')
    .option('-f, --field <key=value>', 'a body field (the query of a GET); true, false, null and numbers are typed', collect, [])
    .option('-H, --header <name:value>', 'an extra request header', collect, [])
    .option('--input <file>', 'the request body from a file, or - for stdin')
    .option('--json', 'compact JSON even at a terminal')
    .addHelpText('after', '\nA non-2xx answer is printed to stderr and the exit code is 1.')
    .action((method: string, path: string, options: ApiOptions) => call(global(), method, path, options));
}
