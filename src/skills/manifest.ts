import { parse as parseYaml } from 'yaml';
import type { InputSchema, ModelChoice, SkillManifest } from '../ports/skills.js';
import { checkInputSchema, InputSchemaError, inputProblem } from './input-contract.js';

export class ManifestError extends Error {}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/;
const SLUG_SHAPE = /^[a-z0-9][a-z0-9-]{0,62}$/;
const ENTRY_SHAPE = /^(?!\/)(?!.*\.\.)[\w./-]+\.m?js$/;
const MODEL_SHAPE = /^[\w.:/@-]{1,200}$/;
const INPUT_HINT_MAX_CHARS = 500;
/** Far below a run's input limit: a default is an example to try, not a data set. */
const DEFAULT_INPUT_MAX_BYTES = 4096;

/** Whether a text can be a skill's slug: it names the skill's folder and its runs, so no path parts. */
export function isSkillSlug(candidate: string): boolean {
  return SLUG_SHAPE.test(candidate);
}

function text(fields: Record<string, unknown>, key: string): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new ManifestError(`${key} must be a non-empty string`);
  return value.trim();
}

function modelId(value: unknown, key: string): string {
  if (typeof value !== 'string' || !MODEL_SHAPE.test(value)) throw new ManifestError(`${key} must be a model id`);
  return value;
}

/**
 * `model: claude-…` or `model: gpt-…` names one provider's model (by the id's family; any
 * other id is taken as an OpenAI-compatible server's); `models: {anthropic, openai}` names both.
 */
function modelChoice(fields: Record<string, unknown>): ModelChoice {
  const choice: ModelChoice = {};
  if (fields.model !== undefined && fields.model !== null) {
    const id = modelId(fields.model, 'model');
    if (id.startsWith('claude')) choice.anthropic = id;
    else choice.openai = id;
  }
  const models = fields.models;
  if (models === undefined || models === null) return choice;
  if (typeof models !== 'object' || Array.isArray(models)) throw new ManifestError('models must map providers to model ids');
  for (const [provider, id] of Object.entries(models)) {
    if (provider !== 'anthropic' && provider !== 'openai') throw new ManifestError('models names anthropic and openai only');
    choice[provider] = modelId(id, `models.${provider}`);
  }
  return choice;
}

/**
 * `allowed-tools` is a space-separated string in the open format (a scoped name such as
 * `Bash(git status:*)` may hold spaces inside its brackets); a YAML list is taken too.
 */
function allowedTools(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const names = typeof value === 'string' ? (value.match(/[^\s,()]+(?:\([^)]*\))?/g) ?? []) : value;
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) {
    throw new ManifestError('allowed-tools must be a list of tool names');
  }
  return names.filter((name) => name !== '');
}

function inputHint(fields: Record<string, unknown>): string | null {
  const hint = text(fields, 'input') ?? null;
  if (hint !== null && hint.length > INPUT_HINT_MAX_CHARS) {
    throw new ManifestError(`input must be at most ${INPUT_HINT_MAX_CHARS} characters`);
  }
  return hint;
}

function defaultInput(fields: Record<string, unknown>): string | null {
  const value = text(fields, 'default-input') ?? null;
  if (value !== null && Buffer.byteLength(value, 'utf8') > DEFAULT_INPUT_MAX_BYTES) {
    throw new ManifestError(`default-input must be at most ${DEFAULT_INPUT_MAX_BYTES} bytes`);
  }
  return value;
}

const EXAMPLES_MAX = 5;

function inputSchema(fields: Record<string, unknown>): InputSchema | null {
  const value = fields['input-schema'];
  if (value === undefined || value === null) return null;
  try {
    return checkInputSchema(value);
  } catch (error) {
    if (error instanceof InputSchemaError) throw new ManifestError(error.message);
    throw error;
  }
}

/** The examples, and the default, must themselves be inputs the skill takes. */
function inputExamples(fields: Record<string, unknown>, schema: InputSchema | null, fallback: string | null): string[] {
  const value = fields['input-examples'] ?? [];
  if (!Array.isArray(value) || value.length > EXAMPLES_MAX || !value.every((each) => typeof each === 'string' && each.trim())) {
    throw new ManifestError(`input-examples must list at most ${EXAMPLES_MAX} non-empty texts`);
  }
  const examples = value as string[];
  for (const example of [...examples, ...(fallback === null ? [] : [fallback])]) {
    if (Buffer.byteLength(example, 'utf8') > DEFAULT_INPUT_MAX_BYTES) {
      throw new ManifestError(`each example input must be at most ${DEFAULT_INPUT_MAX_BYTES} bytes`);
    }
    const problem = schema && inputProblem(schema, example);
    if (problem)
      throw new ManifestError(`example input ${JSON.stringify(example.slice(0, 100))} does not fit input-schema: ${problem}`);
  }
  return examples;
}

/**
 * Reads a SKILL.md: YAML front matter, then instructions. Our keys are slug, runtime, entry,
 * price, model, models, input, default-input, input-examples, input-schema, input-invalid, input-files and restartable; the open Agent Skills keys (license, compatibility, metadata,
 * allowed-tools) are accepted beside them. A skill that names neither runtime nor entry is
 * an agent skill, so a skill written in the open format runs unchanged.
 */
export function parseSkillManifest(source: string, folderName: string): SkillManifest {
  const match = FRONT_MATTER.exec(source);
  if (!match) throw new ManifestError('SKILL.md must start with YAML front matter between --- lines');
  let fields: unknown;
  try {
    fields = parseYaml(match[1] ?? '');
  } catch (error) {
    // Bad YAML is a bad manifest, like any other: the skill is left out, not the server.
    throw new ManifestError(`front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new ManifestError('front matter must be a YAML mapping');
  }
  const record = fields as Record<string, unknown>;
  const name = text(record, 'name');
  const description = text(record, 'description');
  if (!name || !description) throw new ManifestError('name and description are required');

  const slug = text(record, 'slug') ?? folderName;
  if (!SLUG_SHAPE.test(slug)) throw new ManifestError(`slug "${slug}" must be lower-case letters, digits and dashes`);
  const entry = text(record, 'entry') ?? null;
  const runtime = text(record, 'runtime') ?? (entry ? 'script' : 'agent');
  if (runtime !== 'script' && runtime !== 'agent') throw new ManifestError('runtime must be script or agent');
  if (runtime === 'script' && (!entry || !ENTRY_SHAPE.test(entry))) {
    throw new ManifestError('a script skill needs an entry: a .js or .mjs file inside its folder');
  }
  const price = record.price ?? 0;
  if (typeof price !== 'number' || !Number.isInteger(price) || price < 0)
    throw new ManifestError('price must be a whole number of Ds');

  const restartable = record.restartable ?? false;
  if (typeof restartable !== 'boolean') throw new ManifestError('restartable must be true or false');
  const inputFiles = record['input-files'] ?? null;
  if (inputFiles !== null && typeof inputFiles !== 'boolean') throw new ManifestError('input-files must be true or false');
  const schema = inputSchema(record);
  const fallback = defaultInput(record);
  return {
    slug,
    name,
    description,
    runtime,
    entry,
    price,
    body: (match[2] ?? '').trim(),
    models: modelChoice(record),
    allowedTools: allowedTools(record['allowed-tools']),
    inputHint: inputHint(record),
    defaultInput: fallback,
    inputExamples: inputExamples(record, schema, fallback),
    inputSchema: schema,
    inputInvalid: text(record, 'input-invalid') ?? null,
    inputFiles,
    restartable,
  };
}
