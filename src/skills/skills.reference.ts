import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the skills operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

/** A skill installed into the workspace, as the skill list and GET /api/v1/skills/{slug} show it. */
export const INSTALLED_SKILL = {
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

export const skillsReference: OperationReference = {
  'POST /api/v1/skills': {
    doc: [
      'Skills',
      'Install a skill from a folder',
      'Sends a skill’s folder (its SKILL.md at the top, paths relative, contents base64; at most 200 files and 30 MB) to install it into the workspace, where it runs by its slug in the sandbox. The slug is the optional slug field, else the SKILL.md’s, else folderName. 409 when the slug is taken (by one of the server’s skills or the workspace’s): send another in slug; 409 too when the workspace has as many skills as it may (WORKSPACE_SKILL_LIMIT), and 413 when the folder would pass what the workspace may keep (WORKSPACE_STORAGE_LIMIT_BYTES).',
    ],
    request: {
      folderName: 'word-counter',
      slug: 'my-word-counter',
      files: [
        {
          path: 'SKILL.md',
          content: Buffer.from(
            '---\nname: Word counter\ndescription: Counts the words of its input.\nruntime: script\nentry: main.mjs\n---\n',
          ).toString('base64'),
        },
        { path: 'main.mjs', content: Buffer.from("console.log('words');\n").toString('base64') },
      ],
    },
    response: {
      slug: 'my-word-counter',
      name: 'Word counter',
      description: 'Counts the words of its input.',
      runtime: 'script',
      files: 2,
    },
  },
  'GET /api/v1/skills': {
    doc: [
      'Skills',
      'List skills (same as the marketplace)',
      'The same list as GET /api/v1/marketplace/skills: this server’s skills and the workspace’s own, each with its source.',
    ],
    response: { items: [INSTALLED_SKILL], total: 33, limit: 1, offset: 20, hasMore: true },
  },
  'GET /api/v1/skills/{slug}': {
    doc: [
      'Skills',
      'Get a skill',
      'One skill the workspace can run, this server’s or its own, in the list’s shape. 404 for a slug the workspace does not have, including another workspace’s skill.',
    ],
    response: INSTALLED_SKILL,
  },
  'PUT /api/v1/skills/{slug}': {
    doc: [
      'Skills',
      'Update an installed skill',
      'Installs a new version of a skill installed into the workspace from its folder (the same body as installing, without slug), keeping its slug; the old version’s files go. Owners and admins only (403 for members and for this server’s own skills); 404 for a slug the workspace has not installed; 409 while a run of the skill is in progress. The workspace’s limits count the new version in place of the old.',
    ],
    request: {
      folderName: 'word-counter',
      files: [
        {
          path: 'SKILL.md',
          content: Buffer.from(
            '---\nname: Word counter\ndescription: Counts the words and lines of its input.\nruntime: script\nentry: main.mjs\n---\n',
          ).toString('base64'),
        },
        { path: 'main.mjs', content: Buffer.from("console.log('words and lines');\n").toString('base64') },
      ],
    },
    response: {
      slug: 'my-word-counter',
      name: 'Word counter',
      description: 'Counts the words and lines of its input.',
      runtime: 'script',
      files: 2,
    },
  },
  'DELETE /api/v1/skills/{slug}': {
    doc: [
      'Skills',
      'Remove an installed skill',
      'Removes a skill installed into the workspace: it no longer lists or runs, its files go and its space and count are freed. Past runs keep their history and artifacts. Owners and admins only (403 for members and for this server’s own skills); 404 for a slug the workspace has not installed; 409 while a run of the skill is in progress.',
    ],
    response: { success: true },
  },
  'POST /api/v1/artifacts/{artifactId}/install': {
    doc: ['Artifacts', 'Install a skill artifact', 'Makes a skill a run wrote runnable in this workspace under its slug.'],
    response: {
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
  },
};
