import { Type } from 'typebox';
import { StopReason } from '../sdk/schemas/executions.js';

/**
 * The MCP tools' inputs and run_skill's structured result (DESIGN §10), as JSON Schema
 * written with TypeBox like every route's schema. The SDK validates arguments against them
 * (fromJsonSchema in tools.ts) and lists them in tools/list.
 */

export const NoInput = Type.Object({}, { additionalProperties: false });

const InlineFile = Type.Object(
  {
    filename: Type.String({ minLength: 1, maxLength: 1000, description: "The file's name, e.g. report.csv" }),
    contentBase64: Type.String({ description: "The file's bytes, base64-encoded" }),
  },
  { additionalProperties: false },
);

export const RunSkillInput = Type.Object(
  {
    skill_slug: Type.String({ minLength: 1, maxLength: 100, description: 'The slug of the skill to run (see list_skills)' }),
    input: Type.String({ minLength: 1, description: 'The text the skill runs on' }),
    files: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: 100,
        description: 'Ids of files uploaded before (upload_file) for the run to read, in ./uploads/ or /mnt/user-data/uploads/',
      }),
    ),
    inline_files: Type.Optional(
      Type.Array(InlineFile, {
        maxItems: 100,
        description:
          'Small files sent with the call (at most 5 MB decoded in all), stored in your workspace and given to the run',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UploadFileInput = InlineFile;

export const ExecutionInput = Type.Object(
  { executionId: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

export const ListArtifactsInput = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'At most this many (default 20)' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Skip this many, newest first' })),
  },
  { additionalProperties: false },
);

export const ReadArtifactInput = Type.Object(
  {
    artifactId: Type.String({ minLength: 1, maxLength: 100 }),
    path: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: "A file of a bundle; the artifact's main file when absent" }),
    ),
  },
  { additionalProperties: false },
);

export const RunSkillOutput = Type.Object({
  executionId: Type.String(),
  status: Type.String(),
  stopReason: StopReason,
  cost: Type.Number(),
  artifactIds: Type.Array(Type.String()),
  /** The run's page in the app. */
  webUrl: Type.String(),
});
