import { describe, expect, it } from 'vitest';
import {
  type AppError,
  Conflict,
  ExecutionRunning,
  Forbidden,
  InternalError,
  InvalidInput,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  RateLimited,
  ServiceUnavailable,
  Unauthorized,
} from '../../src/errors.js';
import { renderError } from '../../src/http/error-renderer.js';

describe('renderError', () => {
  it.each([
    [new InvalidInput('bad'), 400, 'INVALID_INPUT'],
    [new Unauthorized('Missing auth token'), 401, 'UNAUTHORIZED'],
    [new Forbidden('no'), 403, 'FORBIDDEN'],
    [new NotFound('gone'), 404, 'NOT_FOUND'],
    [new MethodNotAllowed('only read', ['GET', 'HEAD']), 405, 'METHOD_NOT_ALLOWED'],
    [new Conflict('taken'), 409, 'CONFLICT'],
    [new PayloadTooLarge('big'), 413, 'PAYLOAD_TOO_LARGE'],
    [new InternalError('broke'), 500, 'INTERNAL_ERROR'],
    [new ServiceUnavailable('payments are off'), 503, 'SERVICE_UNAVAILABLE'],
  ])('writes %s in the standard envelope', (error: AppError, status, code) => {
    const rendered = renderError(error, 'standard');
    expect(rendered.status).toBe(status);
    expect(rendered.body).toEqual({ error: { code, message: error.message } });
  });

  it('takes a client that hung up mid-body (Fastify: aborted, ECONNRESET, 400) for a bad request, not a lost database', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 });
    const rendered = renderError(aborted, 'standard');
    expect(rendered.status).toBe(400);
    expect(rendered.unexpected).toBe(false);
    // The same code without a status is the database's driver speaking: still a lost connection.
    expect(renderError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'standard').status).toBe(503);
  });

  it('writes a rate limit in its own envelope with Retry-After, in every family', () => {
    for (const family of ['standard', 'artifact'] as const) {
      const rendered = renderError(new RateLimited('slow down', 7), family);
      expect(rendered).toMatchObject({
        status: 429,
        body: { error: { type: 'rate_limit_error', message: 'slow down' } },
        headers: { 'retry-after': '7' },
      });
    }
  });

  it('writes a busy workspace as the execution-running shape', () => {
    expect(renderError(new ExecutionRunning('busy'), 'standard')).toMatchObject({
      status: 429,
      body: { error: 'EXECUTION_RUNNING', message: 'busy' },
    });
  });

  it('writes artifact-route failures in the older string shape, isRunning when busy', () => {
    expect(renderError(new NotFound('Artifact not found'), 'artifact')).toMatchObject({
      status: 404,
      body: { error: 'Artifact not found', isRunning: false },
    });
    expect(renderError(new ExecutionRunning('An execution is running'), 'artifact')).toMatchObject({
      status: 429,
      body: { error: 'An execution is running', isRunning: true },
    });
  });

  it('maps framework errors to 4xx and anything unknown to a 500 that is flagged', () => {
    const validation = Object.assign(new Error('body must have required property code'), { validation: [{}], statusCode: 400 });
    expect(renderError(validation, 'standard')).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
      unexpected: false,
    });
    const tooLarge = Object.assign(new Error('Request body is too large'), {
      statusCode: 413,
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
    });
    expect(renderError(tooLarge, 'standard')).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
    const unknown = renderError(new Error('database exploded: password=hunter2'), 'standard');
    expect(unknown).toMatchObject({
      status: 500,
      body: { error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } },
      unexpected: true,
    });
    expect(renderError('a thrown string', 'standard').status).toBe(500);
  });

  it('does not flag a 503 the settings chose (payments off) as a bug, but does flag a 500', () => {
    expect(renderError(new ServiceUnavailable('payments are off'), 'standard').unexpected).toBe(false);
    expect(renderError(new InternalError('broke'), 'standard').unexpected).toBe(true);
  });

  it('writes a 405 with Allow naming the methods the address takes', () => {
    const rendered = renderError(
      new MethodNotAllowed('This address cannot be replaced; it can only be read or sent to.', ['GET', 'HEAD', 'POST']),
      'standard',
    );
    expect(rendered).toEqual({
      status: 405,
      body: {
        error: { code: 'METHOD_NOT_ALLOWED', message: 'This address cannot be replaced; it can only be read or sent to.' },
      },
      headers: { allow: 'GET, HEAD, POST' },
      unexpected: false,
    });
  });

  it('words a schema refusal of a union for the whole union, not its first branch', () => {
    const branch = (index: number, allowedValue: string) => ({
      instancePath: '/events/0',
      schemaPath: `#/properties/events/items/anyOf/${index}/const`,
      keyword: 'const',
      params: { allowedValue },
    });
    const validation = Object.assign(new Error('body/events/0 must be equal to constant'), {
      statusCode: 400,
      validationContext: 'body',
      validation: [
        branch(0, 'execution.completed'),
        branch(1, 'execution.failed'),
        { instancePath: '/events/0', schemaPath: '#/properties/events/items/anyOf', keyword: 'anyOf', params: {} },
      ],
    });
    expect(renderError(validation, 'standard')).toMatchObject({
      status: 400,
      body: {
        error: {
          code: 'INVALID_INPUT',
          message: 'Item 1 of the events must be one of “execution.completed”, “execution.failed”.',
        },
      },
    });
  });
});
