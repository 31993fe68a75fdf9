import { EMAIL_PATTERN, WEB_ADDRESS_PATTERN } from '../sdk/schemas/common.js';
import { COUNT_PATTERN } from './schemas.js';
import { firstIssue, type ValidationIssue } from './union-issues.js';

/**
 * A request that failed its route's schema, said the way a person reads it. The validator's
 * own text ("body/email must NOT have more than 254 characters") names JSON paths and
 * keywords; clients show our message to people, so it names the field in words, says
 * what it must be, and never quotes a path, a keyword or a pattern.
 */

const PLACES: Record<string, string> = { body: 'request', querystring: 'address', params: 'address', headers: 'request headers' };

/** `skill_slug` → "skill slug", `fileId` → "file id", `/files/0/fileId` → "file id of files item 1". */
function fieldWords(path: string): string | undefined {
  const parts = path.split('/').filter(Boolean);
  if (parts.length === 0) return undefined;
  const spoken = (part: string) =>
    /^\d+$/.test(part)
      ? `item ${Number(part) + 1}`
      : part
          .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
          .replace(/[_-]+/g, ' ')
          .toLowerCase();
  const [last, ...before] = parts.reverse();
  const head = spoken(last as string);
  return before.length === 0 ? head : `${head} of ${before.map(spoken).reverse().join(' ')}`;
}

/** "The email", or for an item of a list "Item 2 of the events" (not "The item 2 of events"). */
function subjectWords(path: string, place: string): string {
  const field = fieldWords(path)?.replace(/\burl\b/g, 'URL');
  if (field === undefined) return `The ${place}`;
  return /^item \d+ of /.test(field) ? `I${field.slice(1).replace(/ of /, ' of the ')}` : `The ${field}`;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'empty',
};

function typeWords(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((each) => TYPE_WORDS[String(each)] ?? String(each)).join(' or ');
}

const plural = (count: unknown, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;

function sentence(issue: ValidationIssue, place: string): string {
  const params = issue.params ?? {};
  const missing = typeof params.missingProperty === 'string' ? params.missingProperty : undefined;
  const subject = subjectWords(`${issue.instancePath ?? ''}${missing ? `/${missing}` : ''}`, place);
  switch (issue.keyword) {
    case 'required':
      return `${subject} is missing.`;
    case 'type':
      return `${subject} must be ${typeWords(params.type)}.`;
    case 'minLength':
      return params.limit === 1
        ? `${subject} is empty.`
        : `${subject} is too short (at least ${plural(params.limit, 'character')}).`;
    case 'maxLength':
      return `${subject} is too long (at most ${plural(params.limit, 'character')}).`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `${subject} must be at least ${params.limit}.`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `${subject} must be at most ${params.limit}.`;
    case 'minItems':
      return `${subject} needs at least ${plural(params.limit, 'item')}.`;
    case 'maxItems':
      return `${subject} takes at most ${plural(params.limit, 'item')}.`;
    case 'enum':
      return Array.isArray(params.allowedValues)
        ? `${subject} must be one of ${params.allowedValues.map((value) => `“${String(value)}”`).join(', ')}.`
        : `${subject} is not one of the values it takes.`;
    case 'const':
      return `${subject} must be “${String(params.allowedValue)}”.`;
    case 'additionalProperties':
      return `The ${place} has a field it does not take: ${String(params.additionalProperty)}.`;
    case 'format':
      return `${subject} is not a valid ${String(params.format).replace(/-/g, ' ')}.`;
    case 'pattern':
      // A paging number (`?limit=-5`, `?offset=ten`): what it must be, and how one looks.
      if (params.pattern === COUNT_PATTERN) return `${subject} must be a whole number, such as 20.`;
      if (params.pattern === EMAIL_PATTERN) return `${subject} is not an email address, such as ada@example.com.`;
      if (params.pattern === WEB_ADDRESS_PATTERN)
        return `${subject} must be a whole web address, such as https://example.com/done.`;
      return `${subject} is not in a form this takes.`;
    default:
      // anyOf and the rest: what is wrong, without the validator's vocabulary.
      return `${subject} is not in a form this takes.`;
  }
}

/** One sentence for the first issue: the one a person fixes first. */
export function validationMessage(issues: unknown, context: unknown): string {
  const place = PLACES[String(context)] ?? 'request';
  const listed = Array.isArray(issues)
    ? issues.filter((issue): issue is ValidationIssue => typeof issue === 'object' && issue !== null)
    : [];
  const first = firstIssue(listed);
  if (first === undefined) return `The ${place} is not one this takes.`;
  return sentence(first, place);
}
