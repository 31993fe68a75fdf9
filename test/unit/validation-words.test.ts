import { describe, expect, it } from 'vitest';
import { COUNT_PATTERN } from '../../src/http/schemas.js';
import { validationMessage } from '../../src/http/validation-words.js';
import { EMAIL_PATTERN, WEB_ADDRESS_PATTERN } from '../../src/sdk/schemas/common.js';

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
    [
      [{ instancePath: '/email', keyword: 'pattern', params: { pattern: EMAIL_PATTERN } }],
      'body',
      'The email is not an email address, such as ada@example.com.',
    ],
    [
      [{ instancePath: '/successUrl', keyword: 'pattern', params: { pattern: WEB_ADDRESS_PATTERN } }],
      'body',
      'The success URL must be a whole web address, such as https://example.com/done.',
    ],
    [
      [{ instancePath: '/events/1', keyword: 'type', params: { type: 'object' } }],
      'body',
      'Item 2 of the events must be an object.',
    ],
    [[], 'body', 'The request is not one this takes.'],
    [undefined, 'params', 'The address is not one this takes.'],
  ];
  it.each(cases)('%j in %s', (issues, context, expected) => {
    const message = validationMessage(issues, context);
    expect(message).toBe(expected);
    expect(message).not.toMatch(VALIDATOR_WORDS);
  });

  // Ajv reports a union no branch matched as each branch's first failure, then the anyOf: the
  // first of them alone named one of four webhook events, or "content is missing" for an
  // event whose type is unknown.
  const eventTypes = ['execution.completed', 'execution.failed', 'artifact.created', 'credits.granted'];
  const literalUnion = [
    ...eventTypes.map((allowedValue, index) => ({
      instancePath: '/events/0',
      schemaPath: `#/properties/events/items/anyOf/${index}/const`,
      keyword: 'const',
      params: { allowedValue },
    })),
    { instancePath: '/events/0', schemaPath: '#/properties/events/items/anyOf', keyword: 'anyOf', params: {} },
  ];

  it('lists every value of a union of constants, not the first branch’s', () => {
    expect(validationMessage(literalUnion, 'body')).toBe(
      'Item 1 of the events must be one of “execution.completed”, “execution.failed”, “artifact.created”, “credits.granted”.',
    );
  });

  it('names every type a union of types takes', () => {
    const issues = [
      { instancePath: '/note', schemaPath: '#/properties/note/anyOf/0/type', keyword: 'type', params: { type: 'string' } },
      { instancePath: '/note', schemaPath: '#/properties/note/anyOf/1/type', keyword: 'type', params: { type: 'null' } },
      { instancePath: '/note', schemaPath: '#/properties/note/anyOf', keyword: 'anyOf', params: {} },
    ];
    expect(validationMessage(issues, 'body')).toBe('The note must be a text or empty.');
  });

  describe('a union of objects told apart by a constant (the execution events’ type)', () => {
    const branches = [
      {
        type: 'object',
        properties: { type: { const: 'user.message' }, content: { type: 'array' } },
        required: ['type', 'content'],
      },
      { type: 'object', properties: { type: { const: 'user.interrupt' } }, required: ['type'] },
    ];
    /** What Ajv (verbose) reports for `event` as events item 1: the first branch stops at its missing content. */
    const issuesFor = (event: Record<string, unknown>) => [
      {
        instancePath: '/events/0',
        schemaPath: '#/properties/events/items/anyOf/0/required',
        keyword: 'required',
        params: { missingProperty: 'content' },
      },
      {
        instancePath: '/events/0/type',
        schemaPath: '#/properties/events/items/anyOf/1/properties/type/const',
        keyword: 'const',
        params: { allowedValue: 'user.interrupt' },
      },
      {
        instancePath: '/events/0',
        schemaPath: '#/properties/events/items/anyOf',
        keyword: 'anyOf',
        params: {},
        data: event,
        schema: branches,
      },
    ];

    it.each([
      [{ type: 'user.foo' }, 'The type of events item 1 must be one of “user.message”, “user.interrupt”.'],
      [{ text: 'hi' }, 'The type of events item 1 is missing.'],
      [{ type: 'user.message' }, 'The content of events item 1 is missing.'],
    ])('%j', (event, expected) => {
      const message = validationMessage(issuesFor(event), 'body');
      expect(message).toBe(expected);
      expect(message).not.toMatch(VALIDATOR_WORDS);
    });

    it('falls back to the first issue when the union’s schema is not at hand', () => {
      const [first, second, union] = issuesFor({ type: 'user.foo' });
      expect(validationMessage([first, second, { ...union, data: undefined, schema: undefined }], 'body')).toBe(
        'The content of events item 1 is missing.',
      );
    });
  });
});
