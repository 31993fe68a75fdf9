/**
 * A value that matched none of a union's branches (TypeBox's Union is JSON Schema's anyOf)
 * is reported by Ajv as each branch's own first failure, then the anyOf itself. Read in
 * order, the first of them is only the first branch's complaint: a webhook event name
 * "must be execution.completed", an event of an unknown type "is missing its content".
 * This finds the issue that speaks for the whole union.
 */

/** One of Ajv's validation errors, as much of it as is read here and in validation-words.ts. */
export interface ValidationIssue {
  instancePath?: string;
  schemaPath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  /** Ajv's verbose option: the value that failed, and the schema (of an anyOf, its branches). */
  data?: unknown;
  schema?: unknown;
}

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The branch failures of `union`: the issues whose schema path lies under its anyOf. */
function branchIssues(union: ValidationIssue, issues: ValidationIssue[]): ValidationIssue[] {
  return issues.filter((issue) => issue !== union && issue.schemaPath?.startsWith(`${union.schemaPath}/`));
}

/** The outermost union the first issue failed inside (Ajv lists an inner anyOf before the outer one). */
function outermostUnion(issues: ValidationIssue[]): ValidationIssue | undefined {
  const first = issues[0];
  if (first === undefined) return undefined;
  return issues.findLast((issue) => issue.keyword === 'anyOf' && first.schemaPath?.startsWith(`${issue.schemaPath}/`));
}

/** A property every branch fixes to a constant (`type` of the execution events): the union's tag. */
function tagOf(branches: Schema[]): { name: string; values: unknown[] } | undefined {
  const [first, ...rest] = branches.map((branch) => (isSchema(branch.properties) ? branch.properties : {}));
  if (first === undefined) return undefined;
  for (const name of Object.keys(first)) {
    const values = [first, ...rest].map((properties) => {
      const property = properties[name];
      return isSchema(property) ? property.const : undefined;
    });
    if (values.every((value) => value !== undefined)) return { name, values };
  }
  return undefined;
}

/** Of a tagged union, the branch the value's tag names, or the tag's own issue when it names none. */
function taggedIssue(union: ValidationIssue, issues: ValidationIssue[]): ValidationIssue | undefined {
  const branches = Array.isArray(union.schema) ? union.schema.filter(isSchema) : [];
  const tag = branches.length > 0 ? tagOf(branches) : undefined;
  if (tag === undefined || !isSchema(union.data)) return undefined;
  const given = union.data[tag.name];
  const at = union.instancePath ?? '';
  if (given === undefined) return { instancePath: at, keyword: 'required', params: { missingProperty: tag.name } };
  const index = tag.values.indexOf(given);
  if (index === -1) return { instancePath: `${at}/${tag.name}`, keyword: 'enum', params: { allowedValues: tag.values } };
  return firstIssue(branchIssues({ ...union, schemaPath: `${union.schemaPath}/${index}` }, issues));
}

/** Every branch refused the value itself for one reason (a constant, a type): one sentence for all of them. */
function sameReasonIssue(union: ValidationIssue, issues: ValidationIssue[]): ValidationIssue | undefined {
  const failures = branchIssues(union, issues);
  const atValue = failures.every((issue) => issue.instancePath === union.instancePath);
  if (failures.length === 0 || !atValue) return undefined;
  if (failures.every((issue) => issue.keyword === 'const' || issue.keyword === 'enum')) {
    const allowedValues = failures.flatMap((issue) =>
      issue.keyword === 'const' ? [issue.params?.allowedValue] : ((issue.params?.allowedValues as unknown[]) ?? []),
    );
    return { instancePath: union.instancePath, keyword: 'enum', params: { allowedValues } };
  }
  if (failures.every((issue) => issue.keyword === 'type')) {
    const types = [...new Set(failures.flatMap((issue) => String(issue.params?.type).split(',')))];
    return { instancePath: union.instancePath, keyword: 'type', params: { type: types } };
  }
  return undefined;
}

/** The issue a person fixes first: the first one, unless it is one branch's view of a union. */
export function firstIssue(issues: ValidationIssue[]): ValidationIssue | undefined {
  const union = outermostUnion(issues);
  if (union === undefined) return issues[0];
  return taggedIssue(union, issues) ?? sameReasonIssue(union, issues) ?? issues[0];
}
