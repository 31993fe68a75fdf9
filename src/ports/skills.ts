/*
 * What a skill is, as every part that runs, lists or sells one reads it: the manifest
 * (skills/manifest.ts parses it from SKILL.md) and the installed skill.
 */
import type { Static } from 'typebox';
import type { InputFieldSchema } from '../sdk/schemas/skills.js';

/**
 * One field of a skill's declared input (front matter `input-schema`; skills/input-contract.ts
 * checks it): the shape the skill list shows clients, so the two cannot differ.
 */
export type FieldSchema = Static<typeof InputFieldSchema>;

/** A skill's declared input: a text with a shape, or a JSON object of simple fields. */
export type InputSchema =
  | (FieldSchema & { type: 'string' })
  | {
      type: 'object';
      title?: string;
      description?: string;
      properties: Record<string, FieldSchema>;
      required?: string[];
    };

/** Which runtime runs a skill (see runtimes.ts). */
export type RuntimeName = 'script' | 'agent';

/** The model an agent skill asks for, per provider; a provider left out uses its default setting. */
export interface ModelChoice {
  anthropic?: string;
  openai?: string;
}

export interface SkillManifest {
  slug: string;
  name: string;
  description: string;
  runtime: RuntimeName;
  /** The module a script skill runs, relative to its folder. */
  entry: string | null;
  /** Ds charged per run, on top of any model usage. */
  price: number;
  /** Instructions: the Markdown after the front matter. */
  body: string;
  /** An agent skill's model: `model: <id>` names it for its provider, `models:` per provider. */
  models: ModelChoice;
  /** The open format's `allowed-tools`: the tools the model is offered (all when absent). */
  allowedTools: string[] | undefined;
  /** `input:`, what a run expects, in a sentence; the description says it when absent. */
  inputHint: string | null;
  /** `default-input:`, what a run given no input works on; null when the skill needs input. */
  defaultInput: string | null;
  /** `input-examples:`, inputs worth trying (the app offers the first); each fits the schema. */
  inputExamples: string[];
  /** `input-schema:`, what an input must be; runs on anything else are refused before they are charged. */
  inputSchema: InputSchema | null;
  /** `input-invalid:`, what a refused input is told, in the author's words. */
  inputInvalid: string | null;
  /**
   * `input-files: true` or `false`: whether the skill reads files a run is given; null when
   * it does not say, which input-files.ts reads by the skill's kind.
   */
  inputFiles: boolean | null;
  /**
   * `restartable: true`: a script skill that is safe to run again from the start with the
   * same input, so a run whose worker was lost is restarted on another (issue 30). Agent
   * runs resume from their journal whatever this says.
   */
  restartable: boolean;
}

export interface Skill extends SkillManifest {
  /** Absolute path of the skill's folder. */
  dir: string;
  builtIn: boolean;
}

/** The installed skills, by slug (skills/registry.ts). */
export interface SkillCatalog {
  get(slug: string): Skill | undefined;
  list(): Skill[];
}
