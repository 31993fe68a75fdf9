import { describe, expect, it } from 'vitest';
import { COUNT_PATTERN } from '../../src/http/schemas.js';
import { validationMessage } from '../../src/http/validation-words.js';

const VALIDATOR_WORDS = /must NOT|must have required|must match|must be equal|body\/|querystring|instancePath|\^|\$/;

describe('validation failures in words', () => {
  const cases: [unknown, string, string][] = [
    [
      [{ instancePath: '/email', keyword: 'maxLength', params: { limit: 254 } }],
      'body',
      'The email is too long (at most 254 characters).',
    ],
    [
      [{ instancePath: '', keyword: 'required', params: { missingProperty: 'skill_slug' } }],
      'body',
      'The skill slug is missing.',
    ],
    [[{ instancePath: '/input', keyword: 'minLength', params: { limit: 1 } }], 'body', 'The input is empty.'],
    [
      [{ instancePath: '/limit', keyword: 'type', params: { type: 'integer' } }],
      'querystring',
      'The limit must be a whole number.',
    ],
    [[{ instancePath: '', keyword: 'type', params: { type: 'object' } }], 'body', 'The request must be an object.'],
    [
      [{ instancePath: '/limit', keyword: 'pattern', params: { pattern: COUNT_PATTERN } }],
      'querystring',
      'The limit must be a whole number, such as 20.',
    ],
    [
      [{ instancePath: '/statuses', keyword: 'pattern', params: { pattern: '^(idle|working)$' } }],
      'querystring',
      'The statuses is not in a form this takes.',
    ],
    [
      [{ instancePath: '/files/0/fileId', keyword: 'maxLength', params: { limit: 100 } }],
      'body',
      'The file id of files item 1 is too long (at most 100 characters).',
    ],
    [
      [{ instancePath: '/mode', keyword: 'enum', params: { allowedValues: ['a', 'b'] } }],
      'body',
      'The mode must be one of “a”, “b”.',
    ],
    [[{ instancePath: '/events', keyword: 'maxItems', params: { limit: 1 } }], 'body', 'The events takes at most 1 item.'],
    [[], 'body', 'The request is not one this takes.'],
    [undefined, 'params', 'The address is not one this takes.'],
  ];
  it.each(cases)('%j in %s', (issues, context, expected) => {
    const message = validationMessage(issues, context);
    expect(message).toBe(expected);
    expect(message).not.toMatch(VALIDATOR_WORDS);
  });
});
