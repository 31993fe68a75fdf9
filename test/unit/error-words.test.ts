import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as errors from '../../src/errors.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { errorFromResponse } from '../../src/sdk/errors.js';
import { inPlainWords } from '../../web/src/error-words.js';

/**
 * Every refusal the API's code can send, walked through what the app does with an answer:
 * the SDK reads the envelope, the app's renderer (inPlainWords) makes it words, and that is
 * what a person sees. The messages are read from the source, where each is thrown.
 */

const PROGRAM_WORDS =
  /must NOT|must have required|must match|must be equal|must be (string|integer|number|object|array|boolean)\b|(body|querystring|params|headers)\/|\b(GET|POST|PUT|PATCH|DELETE) \/|\/api\/v1|\bundefined\b|\[object Object\]/;

/** The error classes the one error handler turns into an answer, by name. */
type ErrorClass = new (message: string) => errors.AppError;
const ERROR_CLASSES: [string, ErrorClass][] = Object.entries(errors as Record<string, unknown>).flatMap(([name, value]) =>
  typeof value === 'function' && value.prototype instanceof errors.AppError
    ? [[name, value as ErrorClass] as [string, ErrorClass]]
    : [],
);

/**
 * Thrown with a message the scan cannot read as text; each is checked where it is made.
 * A new one here needs a reason.
 */
const BUILT_ELSEWHERE: Record<string, string> = {
  'src/identity/credentials.ts strategy.invalidMessage':
    'a credential strategy’s constant (credential-strategies.ts), scanned below',
  'src/identity/credentials.ts unclaimed.invalidMessage': 'the same constants',
  'src/http/error-renderer.ts validationMessage(error.validation':
    'schema refusals: validation-words.ts, and every route in error-envelopes.test.ts',
  'src/http/error-renderer.ts error.message':
    'Fastify’s own refusals, each put in words there (its tests: error-renderer.test.ts)',
  'src/identity/callers.ts refusal': 'the refusal its callers pass, each scanned where it is passed',
  'src/identity/workspaces.ts bound.switchAway': 'a credential strategy’s constant (credential-strategies.ts), scanned below',
  'src/identity/workspaces.ts bound.actElsewhere': 'the same constants',
  'src/identity/rate-limits.ts message': 'the limiter’s messages, literals in the same file, scanned below',
  'src/billing/charges.ts shortfall': 'creditShortfall’s messages, literals in the same file, scanned below',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** A quoted string whose opening quote is capture group `group` (its text is the next group). */
const quoted = (group: number) => `(['"\`])((?:\\\\.|(?!\\${group})[^\\\\])*?)\\${group}`;

/** A template's placeholders as a word, so the text around them is what is judged. */
const asText = (literal: string) => literal.replace(/\$\{[^}]*\}/g, 'something');

interface Scan {
  messages: { where: string; className: string; text: string }[];
  unread: string[];
}

function scan(): Scan {
  const names = ERROR_CLASSES.map(([name]) => name).join('|');
  const thrown = new RegExp(String.raw`new (${names})\(\s*(?:${quoted(2)}|([A-Za-z_][\w.]*(?:\([\w.]*)?))`, 'g');
  const constant = new RegExp(String.raw`const ([A-Z_][A-Z0-9_]*) =\s*${quoted(2)}`, 'g');
  // The checks of callers.ts throw Forbidden with the refusal their callers pass.
  const checked = new RegExp(
    String.raw`(?:requireOwnerOrAdmin|requireSignedInPerson)\([^;'"\`]*?,\s*(?:${quoted(1)}|([A-Z_][A-Z0-9_]*))\s*\)`,
    'g',
  );
  const result: Scan = { messages: [], unread: [] };
  for (const file of sourceFiles(path.join(PROJECT_ROOT, 'src'))) {
    const source = readFileSync(file, 'utf8');
    const where = path.relative(PROJECT_ROOT, file);
    const constants = new Map([...source.matchAll(constant)].map((match) => [match[1] as string, match[3] as string]));
    for (const match of source.matchAll(thrown)) {
      const className = match[1] as string;
      const named = match[4];
      const text = named === undefined ? match[3] : constants.get(named);
      if (text !== undefined) result.messages.push({ where, className, text: asText(text) });
      else result.unread.push(`${where} ${named}`);
    }
    for (const match of source.matchAll(checked)) {
      const text = match[3] === undefined ? match[2] : constants.get(match[3]);
      if (text !== undefined) result.messages.push({ where, className: 'Forbidden', text: asText(text) });
      else result.unread.push(`${where} ${match[3]}`);
    }
  }
  return result;
}

/** Every quoted sentence of a file that reads as a refusal: for the messages made from constants elsewhere. */
function sentencesOf(file: string): string[] {
  const source = readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
  return [...source.matchAll(new RegExp(quoted(1), 'g'))]
    .map((match) => asText(match[2] as string))
    .filter((text) => /^[A-Z][^\n]{12,}[.:)]?$/.test(text) && text.includes(' '));
}

describe('every refusal, as the app shows it', () => {
  const { messages, unread } = scan();

  it('finds the refusals in the source, and knows where the rest are made', () => {
    expect(messages.length).toBeGreaterThan(150);
    expect(unread.filter((one) => !(one in BUILT_ELSEWHERE))).toEqual([]);
  });

  it('shows each one in words: no validator text, no method or route, nothing the program made up', () => {
    const extra = (
      [
        ['src/identity/credential-strategies.ts', 'Unauthorized'],
        ['src/identity/rate-limits.ts', 'Unauthorized'],
        ['src/billing/charges.ts', 'PaymentRequired'],
      ] as const
    ).flatMap(([file, className]) => sentencesOf(file).map((text) => ({ where: file, className, text })));
    for (const { where, className, text } of [...messages, ...extra]) {
      const ErrorClass = ERROR_CLASSES.find(([name]) => name === className)?.[1];
      const thrown = new (ErrorClass as ErrorClass)(text);
      const body =
        thrown.code === 'EXECUTION_RUNNING'
          ? { error: thrown.code, message: text }
          : { error: { code: thrown.code, message: text } };
      const shown = inPlainWords(errorFromResponse(thrown.status, body, null)).message;
      expect(shown, `${where}: ${className}`).toBe(text);
      expect(shown, `${where}: ${className}`).not.toMatch(PROGRAM_WORDS);
      expect(shown, `${where}: ${className}`).not.toContain(thrown.code);
    }
  });

  it('says what happened and what to do when an answer carries no words of ours', () => {
    for (const status of [400, 404, 413, 429, 500, 502, 503]) {
      const shown = inPlainWords(errorFromResponse(status, '<html>Bad Gateway</html>', null)).message;
      expect(shown).toMatch(status >= 500 ? /^The server could not answer just now/ : /^The server refused this request/);
      expect(shown).toMatch(/Try again|Reload the page/);
    }
  });
});
