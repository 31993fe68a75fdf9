import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the files operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

const INPUT_FILE = {
  id: '5b1d9c2e-7a4f-4e8b-9c3d-1f6a2b8e0d47',
  filename: 'sales-q3.csv',
  size: 48213,
  mimeType: 'text/csv',
  sha256: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-08T00:00:00.000Z',
};

export const filesReference: OperationReference = {
  'POST /api/v1/files': {
    doc: [
      'Files',
      'Upload an input file',
      'Stores a file (multipart, one file) for runs to read in their uploads folder. A file no run was given expires after 7 days; one a run was given, 30 days after the last such run (ATTACHED_FILE_RETENTION_DAYS). A workspace keeps at most 1,000 files (WORKSPACE_FILE_LIMIT; past it 409) and 1 GiB of files and installed skill folders together (WORKSPACE_STORAGE_LIMIT_BYTES; past it 413): delete files to make room.',
    ],
    response: INPUT_FILE,
  },
  'GET /api/v1/files': {
    doc: ['Files', 'List uploaded files', 'The workspace’s uploads, newest first.'],
    response: {
      items: [INPUT_FILE],
      total: 1,
      limit: 20,
      offset: 0,
      hasMore: false,
    },
  },
  'GET /api/v1/files/{fileId}': {
    doc: ['Files', 'Read a file’s details', 'Its name, size, type and expiry.'],
    response: INPUT_FILE,
  },
  'DELETE /api/v1/files/{fileId}': {
    doc: ['Files', 'Delete an uploaded file', 'Runs already given it keep their copy.'],
    response: {
      success: true,
    },
  },
  'GET /api/v1/files/{fileId}/content': {
    doc: ['Files', 'Download an uploaded file', 'The bytes as uploaded.'],
  },
};
