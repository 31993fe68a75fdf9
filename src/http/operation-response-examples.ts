/**
 * What each operation answers, for the OpenAPI document and the reference page built from it:
 * one example per JSON answer. Most were taken from a real server's answers to a walk through
 * the API (ids and secrets are that server's random ones, times its test clock's) with the
 * addresses made public-looking; openapi-docs.test.ts checks each against its route's schema.
 */
/** Objects that appear in more than one answer (a list and its detail), written once. */
const WEBHOOK_ENDPOINT = {
  id: '19aca3f7-28da-4aba-a58d-29d06c3a923f',
  url: 'https://hooks.example.com/skillet',
  description: 'Tell the build bot when runs end',
  events: ['execution.completed', 'execution.failed'],
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const FAILED_DELIVERY = {
  id: 'e250eba0-161e-410e-a4ae-57dd05a68db9',
  endpointId: '19aca3f7-28da-4aba-a58d-29d06c3a923f',
  messageId: 'msg_SnezzveeARZpP197VEETV7kD6rf',
  eventType: 'webhook.test',
  status: 'pending',
  attempts: 1,
  nextAttemptAt: '2026-01-01T00:00:05.000Z',
  lastAttemptAt: '2026-01-01T00:00:00.000Z',
  lastStatusCode: null,
  lastError: 'the connection was refused',
  createdAt: '2026-01-01T00:00:00.000Z',
};

const INPUT_FILE = {
  id: '5b1d9c2e-7a4f-4e8b-9c3d-1f6a2b8e0d47',
  filename: 'sales-q3.csv',
  size: 48213,
  mimeType: 'text/csv',
  sha256: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-08T00:00:00.000Z',
};

/** An invitation as the invitation operations answer it. */
const INVITATION = {
  id: '5b1f0e7a-3c4d-4e8f-9a2b-6c7d8e9f0a1b',
  workspaceId: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
  email: 'linus@example.com',
  role: 'member',
  invitedBy: 'ada@example.com',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-08T00:00:00.000Z',
  status: 'pending',
};

const TEXT_STATS_ARTIFACT = {
  id: '76804378-09df-4132-9eda-3084b696a951',
  skillSlug: 'text-stats',
  skillName: 'Text statistics',
  title: 'One fish. Two fish. Red fish, blue fish.',
  fileType: 'application/json',
  artifactType: 'output',
  inputText: 'One fish. Two fish. Red fish, blue fish.',
  contentSize: 392,
  createdSkillSlug: null,
  metadata: null,
  isInstalled: false,
  bundleType: null,
  status: 'completed',
  cost: 1,
  executionTimeMs: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  isPublic: false,
};

/** A skill installed into the workspace, as the skill list and GET /api/v1/skills/{slug} show it. */
const INSTALLED_SKILL = {
  slug: 'my-word-counter',
  name: 'Word counter',
  description: 'Counts the words of its input.',
  runtime: 'script',
  price: 0,
  installed: true,
  source: 'workspace',
  input: 'Counts the words of its input.',
  defaultInput: null,
  examples: [],
  inputSchema: null,
  takesFiles: false,
  modelUse: null,
};

export const RESPONSE_EXAMPLES: Record<string, unknown> = {
  'POST /api/v1/auth/signup': {
    token: 'sklt_sess_prRSaCWQqtj86iq8wB6OSTs5Myfm4ynK2CuAVZOe',
    user: {
      id: '60c4244f-54f1-414d-962d-f46da05b4219',
      email: 'ada@example.com',
      isAdmin: false,
      personalWorkspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  },
  'POST /api/v1/auth/login': {
    token: 'sklt_sess_rbuCYWs6LQDVd0ROM3rjzRcNFwcyXa7mwwixvHN9',
    user: {
      id: '60c4244f-54f1-414d-962d-f46da05b4219',
      email: 'ada@example.com',
      isAdmin: false,
      personalWorkspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  },
  'POST /api/v1/auth/logout': {
    success: true,
  },
  'PUT /api/v1/auth/password': {
    success: true,
    endedSessions: 0,
  },
  'POST /api/v1/auth/password-reset': {
    success: true,
  },
  'POST /api/v1/auth/password-reset/request': {
    success: true,
  },
  'GET /api/v1/auth/sessions': {
    sessions: [
      {
        id: '80ed3c46-c278-48cc-9ec4-af3dc1f217be',
        workspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        createdAt: '2026-01-01T00:00:00.000Z',
        expiresAt: '2026-01-31T00:00:00.000Z',
        current: false,
      },
      {
        id: '9b7dc968-d8d9-4989-991e-699ee27e1a4c',
        workspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        createdAt: '2026-01-01T00:00:00.000Z',
        expiresAt: '2026-01-31T00:00:00.000Z',
        current: true,
      },
    ],
  },
  'DELETE /api/v1/auth/sessions/{id}': {
    success: true,
  },
  'GET /api/v1/me': {
    user: {
      id: '60c4244f-54f1-414d-962d-f46da05b4219',
      email: 'ada@example.com',
      isAdmin: false,
      personalWorkspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
      createdAt: '2026-01-01T00:00:00.000Z',
    },
    workspace: {
      id: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
      name: null,
      personal: true,
      role: 'owner',
    },
    credential: {
      type: 'session',
      id: '9b7dc968-d8d9-4989-991e-699ee27e1a4c',
    },
    tier: 'paygmode',
  },
  'GET /api/v1/auth/connected-apps': {
    apps: [],
  },
  'DELETE /api/v1/auth/connected-apps/{id}': {
    success: true,
  },
  'POST /api/v1/workspaces': {
    id: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
    name: 'Analytics team',
    personal: false,
    role: 'owner',
    createdAt: '2026-01-01T00:00:00.000Z',
  },
  'GET /api/v1/workspaces': {
    workspaces: [
      {
        id: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        name: null,
        personal: true,
        role: 'owner',
        createdAt: '2026-01-01T00:00:00.000Z',
      },
      {
        id: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
        name: 'Analytics team',
        personal: false,
        role: 'owner',
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    ],
  },
  'GET /api/v1/workspaces/{id}/members': {
    members: [
      {
        workspaceId: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
        userId: '60c4244f-54f1-414d-962d-f46da05b4219',
        email: 'ada@example.com',
        role: 'owner',
      },
      {
        workspaceId: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
        userId: '2d878494-8c6f-4bac-b894-206a888c15e5',
        email: 'grace@example.com',
        role: 'member',
      },
    ],
  },
  'POST /api/v1/workspaces/{id}/members': {
    workspaceId: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
    userId: '2d878494-8c6f-4bac-b894-206a888c15e5',
    email: 'grace@example.com',
    role: 'member',
  },
  'POST /api/v1/workspaces/{id}/invitations': INVITATION,
  'GET /api/v1/workspaces/{id}/invitations': {
    invitations: [INVITATION],
  },
  'POST /api/v1/workspaces/{id}/invitations/{invitationId}/resend': INVITATION,
  'DELETE /api/v1/workspaces/{id}/invitations/{invitationId}': { success: true },
  'POST /api/v1/invitations/preview': {
    workspaceName: 'Analytics team',
    email: 'linus@example.com',
    role: 'member',
    invitedBy: 'ada@example.com',
    expiresAt: '2026-01-08T00:00:00.000Z',
  },
  'POST /api/v1/invitations/accept': {
    workspace: {
      id: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
      name: 'Analytics team',
      personal: false,
      role: 'member',
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  },
  'PATCH /api/v1/workspaces/{id}': {
    id: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
    name: 'Analytics and reporting',
    personal: false,
    role: 'owner',
    createdAt: '2026-01-01T00:00:00.000Z',
  },
  'PATCH /api/v1/workspaces/{id}/members/{userId}': {
    workspaceId: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
    userId: '2d878494-8c6f-4bac-b894-206a888c15e5',
    email: 'grace@example.com',
    role: 'admin',
  },
  'DELETE /api/v1/workspaces/{id}/members/{userId}': {
    success: true,
  },
  'PUT /api/v1/workspaces/current': {
    workspace: {
      id: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
      name: null,
      personal: true,
      role: 'owner',
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  },
  'POST /api/v1/keys': {
    id: 'd35cae94-10e9-4ef3-a7f6-2c6149f76f19',
    key: 'sklt_live_7WHY3NZwDseWDBaTwuuT8XCnIGVfCPrUM1QvNsHx',
    label: 'CI on main',
    keyPreview: 'sklt_live_7WHY...NsHx',
    workspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
    createdAt: '2026-01-01T00:00:00.000Z',
  },
  'GET /api/v1/keys': {
    keys: [
      {
        id: 'd35cae94-10e9-4ef3-a7f6-2c6149f76f19',
        label: 'CI on main',
        keyPreview: 'sklt_live_7WHY...NsHx',
        workspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        createdAt: '2026-01-01T00:00:00.000Z',
        lastUsedAt: null,
        heartbeat: 'DORMANT',
      },
    ],
  },
  'DELETE /api/v1/keys/{id}': {
    success: true,
  },
  'POST /api/v1/activate': {
    device_code: 'dc_Kq3v8ZLm2xR7tN1cW9pB4sYh',
    user_code: 'WDJB-MJHT',
    verification_url: 'https://skillet.example.com/app/activate',
    verification_url_complete: 'https://skillet.example.com/app/activate?code=WDJB-MJHT',
    app_download_url: 'https://skillet.example.com/app/',
    expires_in: 600,
    interval: 5,
  },
  'POST /api/v1/activate/poll': {
    status: 'approved',
    api_key: 'sklt_live_o6McZB9wzkjAxiYLmbLWxcUYl8oZiq7dM4aXsFdW',
    tier: 'paygmode',
    workspace: {
      id: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
      name: null,
    },
  },
  'GET /api/v1/activate/lookup': {
    user_code: 'X5PP-M63S',
    client_label: 'node',
    client_ua: 'node',
    client_ip: '127.0.0.1',
    status: 'pending',
    expires_at: '2026-01-01T00:10:00.000Z',
  },
  'POST /api/v1/activate/confirm': {
    success: true,
  },
  'POST /api/v1/activate/deny': {
    success: true,
  },
  'POST /api/v1/agents/connect': {
    requestId: '820afa30-e80f-4b97-a21d-7c33133376f4',
    status: 'pending',
    approveUrl: 'https://skillet.example.com/agents/connect/820afa30-e80f-4b97-a21d-7c33133376f4',
    expiresAt: '2026-01-01T00:10:00.000Z',
  },
  'GET /api/v1/agents/connect/{requestId}': {
    requestId: 'ec1e16b2-a845-4cca-bb93-3d3a71fe064e',
    status: 'pending',
    scopes: ['read', 'write'],
    label: 'My coding agent',
    keyLabel: 'CI on main',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-01T00:10:00.000Z',
  },
  'POST /api/v1/agents/connect/{requestId}/approve': {
    requestId: 'ec1e16b2-a845-4cca-bb93-3d3a71fe064e',
    status: 'approved',
    scopes: ['read', 'write'],
    label: 'My coding agent',
    keyLabel: 'CI on main',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-01T00:10:00.000Z',
  },
  'POST /api/v1/agents/connect/{requestId}/deny': {
    requestId: '820afa30-e80f-4b97-a21d-7c33133376f4',
    status: 'denied',
    scopes: ['read'],
    label: null,
    keyLabel: 'CI on main',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-01T00:10:00.000Z',
  },
  'POST /api/v1/executions': {
    id: 'd53372e0-f96d-4d9b-a2f0-de4e374bda9a',
    skill_slug: 'ticker',
    skill_name: 'Ticker',
    status: 'idle',
  },
  'POST /api/v1/runs': {
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
  'GET /api/v1/executions': {
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
  'GET /api/v1/executions/{executionId}/stream-token': {
    sseUrl:
      'https://skillet.example.com/executions/d53372e0-f96d-4d9b-a2f0-de4e374bda9a/stream?ts=1767225600000&sig=3c43df0c2a1f7818cb487f65151e03a341dcd74ebc51f15c85093180b5372619',
  },
  'POST /api/v1/executions/{executionId}/events': {
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
  'GET /api/v1/executions/{executionId}/status': {
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
  'GET /api/v1/executions/{executionId}/event-times': {
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
  'POST /api/v1/executions/{executionId}/rerun': {
    executionId: '7f38d711-9e0a-468b-aaaa-cf3bb1edb46a',
    parentExecutionId: 'd53372e0-f96d-4d9b-a2f0-de4e374bda9a',
    skillName: 'Ticker',
    status: 'started',
    message: 'Rerun started',
  },
  'POST /api/v1/executions/{executionId}/cancel': {
    success: true,
    message: 'The run was stopped',
    processKilled: true,
    actualStatus: 'idle',
  },
  'POST /api/v1/skills': {
    slug: 'my-word-counter',
    name: 'Word counter',
    description: 'Counts the words of its input.',
    runtime: 'script',
    files: 2,
  },
  'GET /api/v1/marketplace/skills': { items: [INSTALLED_SKILL], total: 33, limit: 1, offset: 20, hasMore: true },
  'GET /api/v1/skills': { items: [INSTALLED_SKILL], total: 33, limit: 1, offset: 20, hasMore: true },
  'GET /api/v1/skills/{slug}': INSTALLED_SKILL,
  'PUT /api/v1/skills/{slug}': {
    slug: 'my-word-counter',
    name: 'Word counter',
    description: 'Counts the words and lines of its input.',
    runtime: 'script',
    files: 2,
  },
  'DELETE /api/v1/skills/{slug}': { success: true },
  'GET /api/v1/artifacts': {
    items: [
      {
        ...TEXT_STATS_ARTIFACT,
        fileList: [
          {
            path: 'stats.json',
            size: 392,
          },
        ],
      },
    ],
    total: 1,
    limit: 1,
    offset: 0,
    hasMore: false,
  },
  'GET /api/v1/artifacts/{artifactId}': {
    ...TEXT_STATS_ARTIFACT,
    content:
      '{\n  "words": 8,\n  "sentences": 3,\n  "characters": 40,\n  "charactersWithoutSpaces": 33,\n  "readingTimeMinutes": 1,\n  "topTerms": [\n    {\n      "term": "fish",\n      "count": 4\n    },\n    {\n      "term": "blue",\n      "count": 1\n    },\n    {\n      "term": "one",\n      "count": 1\n    },\n    {\n      "term": "red",\n      "count": 1\n    },\n    {\n      "term": "two",\n      "count": 1\n    }\n  ]\n}\n',
  },
  'DELETE /api/v1/artifacts/{artifactId}': {
    success: true,
  },
  'GET /api/v1/artifacts/{artifactId}/manifest': {
    version: '1',
    bundleType: 'directory',
    files: [
      {
        path: 'index.html',
        checksum: 'sha256:9f2b5c0e7d4a1f3b8c6e2d9a0b7f4e1c3d5a8b2e6f0c9d7a4b1e3f5c8d2a6b0e',
        size: 1843,
        mimeType: 'text/html',
      },
      {
        path: 'style.css',
        checksum: 'sha256:1c4e7a0d3b6f9e2c5a8d1b4e7f0a3c6d9b2e5f8a1d4c7b0e3f6a9d2c5b8e1f4a',
        size: 612,
        mimeType: 'text/css',
      },
    ],
    createdAt: '2026-01-01T00:00:00.000Z',
  },
  'POST /api/v1/artifacts/{artifactId}/publish': {
    publicUrl: 'https://skillet.example.com/public/76804378-09df-4132-9eda-3084b696a951/stats.json',
    filesCopied: 1,
  },
  'POST /api/v1/artifacts/{artifactId}/unpublish': {
    success: true,
  },
  'POST /api/v1/artifacts/{artifactId}/install': {
    id: '76804378-09df-4132-9eda-3084b696a951',
    skillSlug: 'skill-creator',
    skillName: 'Skill creator',
    title: 'Word counter',
    fileType: 'application/zip',
    artifactType: 'skill',
    inputText: 'A skill that counts the words of its input',
    contentSize: 2210,
    createdSkillSlug: 'word-counter',
    metadata: {
      fileCount: 2,
      skill: {
        slug: 'word-counter',
      },
    },
    isInstalled: true,
    bundleType: 'directory',
    status: 'completed',
    cost: 1,
    executionTimeMs: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    isPublic: false,
  },
  'GET /api/v1/artifacts/{artifactId}/preview-link': {
    url: 'https://skillet.example.com/api/v1/previews/76804378-09df-4132-9eda-3084b696a951/1767225600000.8d10792af6ad02d00075906ad96d60c1e6c5e8f735597d0e86a913d2259f7f79/',
    expiresAt: '2026-01-01T01:00:00.000Z',
  },
  'POST /api/v1/files': INPUT_FILE,
  'GET /api/v1/files': {
    items: [INPUT_FILE],
    total: 1,
    limit: 20,
    offset: 0,
    hasMore: false,
  },
  'GET /api/v1/files/{fileId}': INPUT_FILE,
  'DELETE /api/v1/files/{fileId}': {
    success: true,
  },
  'GET /api/v1/agents': {
    agents: [
      {
        id: 'assistant',
        name: 'Assistant',
        description:
          "Skillet's assistant: lists the workspace's skills, starts runs (with your approval) and reads their executions and artifacts.",
      },
      {
        id: 'agent-gpt',
        name: 'agent-gpt',
        description: 'Test agent skill that names an OpenAI model, so house calls go to the OpenAI-compatible server.',
      },
      {
        id: 'agent-hostile',
        name: 'agent-hostile',
        description:
          "Test agent skill whose scripts fight the sandbox's limits (a fork bomb, a CPU burner, a socket-buffer hoarder), for the kernel-limit tests.",
      },
      {
        id: 'agent-plain',
        name: 'agent-plain',
        description:
          'Test agent skill in the open Agent Skills format, with only the standard keys; the fake model decides what it does.',
      },
      {
        id: 'agent-priced',
        name: 'agent-priced',
        description:
          'Test agent skill with a price of 2 Ds, references and a Python script the instructions tell the model to run.',
      },
      {
        id: 'chart',
        name: 'chart',
        description:
          'Draws a clear chart (bar, line or scatter) as a PNG from a CSV file you upload, with matplotlib, and explains what it shows.',
      },
      {
        id: 'computer-hostile',
        name: 'computer-hostile',
        description:
          "Test skill whose scripts fight the computer's limits from bash (socket-buffer hoarding, files hidden by deleting them while open), for the kernel-limit tests.",
      },
      {
        id: 'data-summariser',
        name: 'data-summariser',
        description:
          'Summarises a CSV table: exact per-column statistics computed by a script, then a short written interpretation, saved as summary.md with the figures in stats.json.',
      },
      {
        id: 'pdf',
        name: 'pdf',
        description:
          'Works with the PDF files you upload — merges them, splits them into pages, pulls out their text, or fills in a simple form — and saves the resulting PDFs or text for you.',
      },
      {
        id: 'report-writer',
        name: 'report-writer',
        description:
          'Researches nothing and invents nothing; turns the notes, figures or question you give it into a clear, well-structured Markdown report, report.md.',
      },
      {
        id: 'shout-files',
        name: 'shout-files',
        description:
          'Test skill written the way public skills are (only a name and a description); its instructions have the model run its own script from /mnt/skills with bash.',
      },
      {
        id: 'site-builder',
        name: 'site-builder',
        description:
          'Builds a small static website (an index page, up to three more pages and one stylesheet) from a description of what it should say, as a bundle ready to publish.',
      },
      {
        id: 'xlsx',
        name: 'xlsx',
        description:
          'Reads the Excel workbooks you upload and writes new ones — sheets of data, with working formulas — using openpyxl; tell it what to look up, total or build.',
      },
    ],
  },
  'GET /api/v1/agents/{agentId}/threads': {
    items: [],
    total: 0,
    limit: 20,
    offset: 0,
    hasMore: false,
  },
  'POST /api/v1/agents/{agentId}/send-message': {
    messageId: 'c2f8a1d4-6b3e-4f7a-9d0c-5e1b8a2f6d39',
    threadId: 'weekly-report',
  },
  'POST /api/v1/agents/{agentId}/threads/{threadId}/approvals/{approvalId}': {
    approvalId: 'a7e3c9f1-2b5d-4e8a-b6c0-9d4f1e7a3b52',
    threadId: 'weekly-report',
    tool: 'start_run',
    input: {
      skill: 'csv-chart',
      input: 'sales-q3.csv',
    },
    status: 'approved',
    createdAt: '2026-01-01T00:00:00.000Z',
    decidedAt: '2026-01-01T00:00:12.000Z',
  },
  'GET /api/v1/billing/balance': {
    balance: 99,
    totalSpent: 1,
    canExecute: true,
    isAdmin: false,
  },
  'GET /api/v1/billing/packs': {
    packs: [
      {
        id: 'pack_100',
        name: '100 Ds',
        credits: 100,
        priceCents: 100,
      },
      {
        id: 'pack_250',
        name: '250 Ds',
        credits: 250,
        priceCents: 225,
      },
      {
        id: 'pack_500',
        name: '500 Ds',
        credits: 500,
        priceCents: 425,
      },
      {
        id: 'pack_1000',
        name: '1,000 Ds',
        credits: 1000,
        priceCents: 800,
      },
      {
        id: 'pack_5000',
        name: '5,000 Ds',
        credits: 5000,
        priceCents: 3750,
      },
    ],
  },
  'POST /api/v1/billing/purchase': {
    checkoutUrl: 'https://skillet.example.com/billing/checkout/cs_local_pzJygB0pv8o7yeit1nhF1cOc',
  },
  'POST /api/v1/billing/subscribe': {
    checkoutUrl: 'https://skillet.example.com/billing/checkout/cs_local_MRYim3PAKxOQEYk4QmWNUf6h',
  },
  'GET /api/v1/billing/transactions': {
    transactions: [
      {
        id: 3,
        userId: '60c4244f-54f1-414d-962d-f46da05b4219',
        amount: -1,
        type: 'usage',
        description: 'Run 22bb30ad-45dd-4217-9fd2-d402b7c2133d: 1 Ds',
        executionId: '22bb30ad-45dd-4217-9fd2-d402b7c2133d',
        paymentSessionId: null,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
      {
        id: 1,
        userId: '60c4244f-54f1-414d-962d-f46da05b4219',
        amount: 100,
        type: 'purchase',
        description: 'Sign-up credits: 100 Ds',
        executionId: null,
        paymentSessionId: null,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    ],
  },
  'GET /api/v1/billing/subscription/tier': {
    tier: 'paygmode',
    info: {
      name: 'Pay as you go',
      priceCents: 0,
      priceDisplay: '$0',
      monthlyCredits: 0,
      packDiscount: 0,
    },
    subscriptionExpiresAt: null,
    isTestMode: true,
  },
  'GET /api/v1/billing/subscription': {
    subscribed: false,
    renews: false,
    paidUntil: null,
  },
  'POST /api/v1/billing/subscription/cancel': {
    subscribed: true,
    renews: false,
    paidUntil: '2026-02-01T00:00:00.000Z',
  },
  'GET /api/v1/billing/subscription/info': {
    modes: {
      byokmode: {
        name: 'Bring your own key',
        priceCents: 0,
        priceDisplay: '$0',
        monthlyCredits: 0,
        packDiscount: 0,
      },
      paygmode: {
        name: 'Pay as you go',
        priceCents: 0,
        priceDisplay: '$0',
        monthlyCredits: 0,
        packDiscount: 0,
      },
      basedmode: {
        name: 'Based',
        priceCents: 2900,
        priceDisplay: '$29.00 / month',
        monthlyCredits: 2000,
        packDiscount: 0.2,
      },
    },
  },
  'GET /api/v1/billing/publishable-key': {
    publishableKey: 'pk_test_local',
  },
  'GET /api/v1/byok': {
    hasKey: true,
    keyPreview: 'sk-ant-…CdEf',
    provider: 'anthropic',
  },
  'PUT /api/v1/byok': {
    hasKey: true,
    keyPreview: 'sk-ant-…CdEf',
    provider: 'anthropic',
  },
  'DELETE /api/v1/byok': {
    hasKey: false,
    keyPreview: null,
  },
  'POST /api/v1/webhooks': {
    ...WEBHOOK_ENDPOINT,
    secret: 'whsec_XTv5Ggk+iVNyDaLw8PsGWIXUuMKhC1yiEYMJK5jru2Q=',
  },
  'GET /api/v1/webhooks': {
    webhooks: [WEBHOOK_ENDPOINT],
  },
  'GET /api/v1/webhooks/{id}': WEBHOOK_ENDPOINT,
  'PATCH /api/v1/webhooks/{id}': WEBHOOK_ENDPOINT,
  'DELETE /api/v1/webhooks/{id}': {
    success: true,
  },
  'POST /api/v1/webhooks/{id}/secret': {
    secret: 'whsec_W+Vyp2fsn2TyEp0luDg0yV7W6+9F4E8F+xVZ5+cZLlA=',
  },
  'POST /api/v1/webhooks/{id}/test': {
    id: 'e250eba0-161e-410e-a4ae-57dd05a68db9',
    endpointId: '19aca3f7-28da-4aba-a58d-29d06c3a923f',
    messageId: 'msg_SnezzveeARZpP197VEETV7kD6rf',
    eventType: 'webhook.test',
    status: 'pending',
    attempts: 0,
    nextAttemptAt: '2026-01-01T00:00:00.000Z',
    lastAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  },
  'GET /api/v1/webhooks/{id}/deliveries': {
    items: [FAILED_DELIVERY],
    total: 1,
    limit: 20,
    offset: 0,
    hasMore: false,
  },
  'GET /api/v1/webhooks/{id}/deliveries/{deliveryId}': {
    ...FAILED_DELIVERY,
    payload: {
      type: 'webhook.test',
      timestamp: '2026-01-01T00:00:00.000Z',
      data: {
        endpointId: '19aca3f7-28da-4aba-a58d-29d06c3a923f',
        workspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
      },
    },
    attemptLog: [
      {
        number: 1,
        attemptedAt: '2026-01-01T00:00:00.000Z',
        statusCode: null,
        error: 'the connection was refused',
        durationMs: 5,
      },
    ],
  },
  'POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    ...FAILED_DELIVERY,
    nextAttemptAt: '2026-01-01T00:00:00.000Z',
  },
  'GET /api/v1/events/subscribe-url': {
    url: 'wss://skillet.example.com/events/ws?c=eyJraW5kIjoic2Vzc2lvbiIsImNyZWRlbnRpYWxJZCI6IjliN2RjOTY4LWQ4ZDktNDk4OS05OTFlLTY5OWVlMjdlMWE0YyIsIndvcmtzcGFjZUlkIjoiOTI5NzhjZDgtNTdjZi00ZWEyLWJiOWMtNDMyOTQwNTI3OGVlIn0&ts=1767225600000&sig=4b92c0f6a51353eb2d8ba3d6d6bb46dcba9d1e6c759ed55556adc4d17a154c58',
    expiresInMs: 300000,
  },
};

/**
 * An operation's answer for a further success status whose example differs from the first
 * one's: POST /runs answers 201 once the run is over and 202 while it still works.
 */
export const FURTHER_STATUS_EXAMPLES: Record<string, Record<string, unknown>> = {
  'POST /api/v1/runs': {
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
};
