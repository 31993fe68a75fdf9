import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the artifacts operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

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

export const artifactsReference: OperationReference = {
  'GET /api/v1/artifacts': {
    doc: [
      'Artifacts',
      'List artifacts',
      'With limit or offset: a page with a total. Without limit: a bare array (an older shape kept for its clients).',
    ],
    response: {
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
  },
  'GET /api/v1/artifacts/{artifactId}': {
    doc: ['Artifacts', 'Read an artifact', 'The artifact with its content for a single text file.'],
    response: {
      ...TEXT_STATS_ARTIFACT,
      content:
        '{\n  "words": 8,\n  "sentences": 3,\n  "characters": 40,\n  "charactersWithoutSpaces": 33,\n  "readingTimeMinutes": 1,\n  "topTerms": [\n    {\n      "term": "fish",\n      "count": 4\n    },\n    {\n      "term": "blue",\n      "count": 1\n    },\n    {\n      "term": "one",\n      "count": 1\n    },\n    {\n      "term": "red",\n      "count": 1\n    },\n    {\n      "term": "two",\n      "count": 1\n    }\n  ]\n}\n',
    },
  },
  'DELETE /api/v1/artifacts/{artifactId}': {
    doc: ['Artifacts', 'Delete an artifact', 'Deletes it and its files for good.'],
    response: {
      success: true,
    },
  },
  'GET /api/v1/artifacts/{artifactId}/manifest': {
    doc: [
      'Artifacts',
      'Read a bundle’s manifest',
      'The files of a multi-file artifact with their sizes, types and checksums; 404 for a single file.',
    ],
    response: {
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
  },
  'GET /api/v1/artifacts/{artifactId}/download': {
    doc: ['Artifacts', 'Download an artifact', 'The file itself, or a ZIP of a bundle, with a download file name.'],
  },
  'GET /api/v1/artifacts/{artifactId}/preview-link': {
    doc: [
      'Artifacts',
      'Get a preview link',
      'A link, valid for an hour, under which a bundle’s files open in a sandboxed frame with their styles and pictures.',
    ],
    response: {
      url: 'https://skillet.example.com/api/v1/previews/76804378-09df-4132-9eda-3084b696a951/1767225600000.8d10792af6ad02d00075906ad96d60c1e6c5e8f735597d0e86a913d2259f7f79/',
      expiresAt: '2026-01-01T01:00:00.000Z',
    },
  },
  'GET /api/v1/previews/{*}': {
    doc: [
      'Artifacts',
      'Preview a bundle file',
      'One file through a preview link; the link is the credential. Served with a sandbox policy: no script runs.',
    ],
  },
  'GET /api/v1/artifacts/{artifactId}/raw': {
    doc: ['Artifacts', 'Read as plain text', 'The content as text/plain.'],
  },
  'GET /api/v1/artifacts/{artifactId}/file/{*}': {
    doc: ['Artifacts', 'Read one file of a bundle', 'One file of a multi-file artifact by its path, with its own content type.'],
  },
  'POST /api/v1/artifacts/{artifactId}/publish': {
    doc: ['Artifacts', 'Publish an artifact', 'Copies its files to a public address anyone can open. Owner or admin only.'],
    response: {
      publicUrl: 'https://skillet.example.com/public/76804378-09df-4132-9eda-3084b696a951/stats.json',
      filesCopied: 1,
    },
  },
  'POST /api/v1/artifacts/{artifactId}/unpublish': {
    doc: ['Artifacts', 'Unpublish an artifact', 'Takes the public copy down. Owner or admin only.'],
    response: {
      success: true,
    },
  },
};
