import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the runs operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

export const runsReference: OperationReference = {
  'POST /api/v1/executions': {
    doc: [
      'Runs',
      'Create an execution',
      'Creates an execution of a skill with its input, waiting (idle). Open its stream, then post a user.message to start it. Input that does not fit the skill’s declared input is refused here, before anything is charged. Send Idempotency-Key to make retries safe.',
    ],
    request: { skill_slug: 'ticker', input: '5 300', interface: 'api' },
    response: {
      id: 'd53372e0-f96d-4d9b-a2f0-de4e374bda9a',
      skill_slug: 'ticker',
      skill_name: 'Ticker',
      status: 'idle',
    },
  },
  'POST /api/v1/runs': {
    doc: [
      'Runs',
      'Run a skill in one call',
      'Creates an execution and starts its run with the input, in one call (the input is sent once). Without Prefer it answers 202 at once; with `Prefer: wait` (or `wait=N` seconds, at most 60) it waits for the result: 201 with the final status, output and artifacts when the run ended in time, else 202 with where it stands. Either way sseUrl follows the run (add lastSeq to skip what you have), statusUrl reads it and webUrl is its page in the app. A client that stops waiting leaves the run running. Refused like a start: 402 without the credits, 429 EXECUTION_RUNNING while the workspace runs another.',
    ],
    request: { skill_slug: 'ticker', input: '3 10' },
    response: {
      executionId: 'd53372e0-f96d-4d9b-a2f0-de4e374bda9a',
      skillSlug: 'ticker',
      skillName: 'Ticker',
      status: 'completed',
      stopReason: 'end_turn',
      cost: 0,
      inputText: '3 10',
      startedAt: '2026-01-01T00:00:00.000Z',
      completedAt: '2026-01-01T00:00:00.000Z',
      output: 'tick 1 of 3\ntick 2 of 3\ntick 3 of 3',
      artifacts: [],
      sseUrl:
        'https://skillet.example.com/executions/d53372e0-f96d-4d9b-a2f0-de4e374bda9a/stream?ts=1767225600000&sig=3c43df0c2a1f7818cb487f65151e03a341dcd74ebc51f15c85093180b5372619',
      statusUrl: 'https://skillet.example.com/api/v1/executions/d53372e0-f96d-4d9b-a2f0-de4e374bda9a/status',
      webUrl: 'https://skillet.example.com/app/runs/d53372e0-f96d-4d9b-a2f0-de4e374bda9a',
    },
    further: {
      202: {
        executionId: 'd53372e0-f96d-4d9b-a2f0-de4e374bda9a',
        skillSlug: 'ticker',
        skillName: 'Ticker',
        status: 'working',
        stopReason: null,
        cost: 0,
        inputText: '3 10',
        startedAt: '2026-01-01T00:00:00.000Z',
        completedAt: null,
        output: 'tick 1 of 3',
        artifacts: [],
        sseUrl:
          'https://skillet.example.com/executions/d53372e0-f96d-4d9b-a2f0-de4e374bda9a/stream?ts=1767225600000&sig=3c43df0c2a1f7818cb487f65151e03a341dcd74ebc51f15c85093180b5372619',
        statusUrl: 'https://skillet.example.com/api/v1/executions/d53372e0-f96d-4d9b-a2f0-de4e374bda9a/status',
        webUrl: 'https://skillet.example.com/app/runs/d53372e0-f96d-4d9b-a2f0-de4e374bda9a',
      },
    },
  },
  'GET /api/v1/executions': {
    doc: [
      'Runs',
      'List executions',
      'The workspace’s executions, newest first, with paging and filters by source (channels), interface and state (statuses). Executions that never started leave the list after 15 minutes.',
    ],
    response: {
      items: [
        {
          id: 1,
          executionId: 'd53372e0-f96d-4d9b-a2f0-de4e374bda9a',
          skillSlug: 'ticker',
          skillName: 'Ticker',
          status: 'completed',
          cost: 0,
          source: 'api',
          interface: 'api',
          inputText: '3 10',
          startedAt: '2026-01-01T00:00:00.000Z',
          completedAt: '2026-01-01T00:00:00.000Z',
        },
      ],
      hasMore: false,
      offset: 0,
      limit: 2,
    },
  },
  'GET /api/v1/executions/{executionId}/stream-token': {
    doc: [
      'Runs',
      'Get a stream URL',
      'A short-lived signed URL for the execution’s event stream. The URL is the credential; fetch a new one for every reconnect.',
    ],
    response: {
      sseUrl:
        'https://skillet.example.com/executions/d53372e0-f96d-4d9b-a2f0-de4e374bda9a/stream?ts=1767225600000&sig=3c43df0c2a1f7818cb487f65151e03a341dcd74ebc51f15c85093180b5372619',
    },
  },
  'POST /api/v1/executions/{executionId}/events': {
    doc: [
      'Runs',
      'Start or interrupt a run',
      'A user.message starts a run of an idle execution (its first, or a resume); a user.interrupt stops the running one. One run per workspace at a time: another answers 429 EXECUTION_RUNNING.',
    ],
    request: {
      events: [{ type: 'user.message', content: [{ type: 'text', text: '5 300' }] }],
    },
    response: {
      data: [
        {
          id: '71900486-e896-4261-b6d1-52bae7d843ec',
          type: 'user.message',
          sequence: 1,
          payload: {
            content: [
              {
                type: 'text',
                text: '2 10',
              },
            ],
          },
        },
        {
          id: '783b4cc0-6727-42f2-8fe1-9b23907d26d7',
          type: 'session.status_running',
          sequence: 2,
          payload: {},
        },
      ],
    },
  },
  'GET /api/v1/executions/{executionId}/status': {
    doc: ['Runs', 'Read an execution’s status', 'Its state, skill, start time and the text it has output so far.'],
    response: {
      executionId: 'd53372e0-f96d-4d9b-a2f0-de4e374bda9a',
      status: 'completed',
      skillSlug: 'ticker',
      skillName: 'Ticker',
      startedAt: '2026-01-01T00:00:00.000Z',
      outputBlocks: [
        {
          type: 'text',
          text: 'tick 1 of 3',
        },
        {
          type: 'text',
          text: 'tick 2 of 3',
        },
        {
          type: 'text',
          text: 'tick 3 of 3',
        },
      ],
    },
  },
  'GET /api/v1/executions/{executionId}/event-times': {
    doc: [
      'Runs',
      'Read when each event happened',
      'The time each stored event of the execution was recorded, by sequence, 1,000 at a time: pass the last sequence as after for the next page. The stream’s frames carry no time.',
    ],
    response: {
      times: [
        {
          sequence: 4,
          at: '2026-01-01T00:00:00.000Z',
        },
        {
          sequence: 5,
          at: '2026-01-01T00:00:00.000Z',
        },
        {
          sequence: 6,
          at: '2026-01-01T00:00:00.000Z',
        },
        {
          sequence: 7,
          at: '2026-01-01T00:00:00.000Z',
        },
      ],
      hasMore: false,
    },
  },
  'POST /api/v1/executions/{executionId}/rerun': {
    doc: [
      'Runs',
      'Rerun with new input',
      'Starts a new execution of a completed one’s skill with new input; the child names its parent.',
    ],
    request: { input: '10 200' },
    response: {
      executionId: '7f38d711-9e0a-468b-aaaa-cf3bb1edb46a',
      parentExecutionId: 'd53372e0-f96d-4d9b-a2f0-de4e374bda9a',
      skillName: 'Ticker',
      status: 'started',
      message: 'Rerun started',
    },
  },
  'POST /api/v1/executions/{executionId}/cancel': {
    doc: [
      'Runs',
      'Cancel a run',
      'Stops the running run (stop reason interrupt) and says what state it left. Cancelling an idle execution changes nothing.',
    ],
    response: {
      success: true,
      message: 'The run was stopped',
      processKilled: true,
      actualStatus: 'idle',
    },
  },
  'GET /api/v1/events/subscribe-url': {
    doc: [
      'Runs',
      'Get a control-plane URL',
      'A signed WebSocket address for the live control channel of the calling credential; fetch a new one for every reconnect.',
    ],
    response: {
      url: 'wss://skillet.example.com/events/ws?c=eyJraW5kIjoic2Vzc2lvbiIsImNyZWRlbnRpYWxJZCI6IjliN2RjOTY4LWQ4ZDktNDk4OS05OTFlLTY5OWVlMjdlMWE0YyIsIndvcmtzcGFjZUlkIjoiOTI5NzhjZDgtNTdjZi00ZWEyLWJiOWMtNDMyOTQwNTI3OGVlIn0&ts=1767225600000&sig=4b92c0f6a51353eb2d8ba3d6d6bb46dcba9d1e6c759ed55556adc4d17a154c58',
      expiresInMs: 300000,
    },
  },
};
