/** One line a script skill sends its runner (see runtime/harness.mjs). */
export type SkillMessage =
  | { type: 'message'; text: string }
  | { type: 'tool_use'; name: string; label: string }
  | { type: 'thinking' }
  | { type: 'info'; message: string }
  | { type: 'result'; summary: string }
  | { type: 'file'; path: string; size: number };

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** Reads one protocol line (its length was bounded as it was read); null when it is not one (garbage ends the run). */
export function parseSkillMessage(line: string): SkillMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const message = value as Record<string, unknown>;
  switch (message.type) {
    case 'message':
      return isString(message.text) ? { type: 'message', text: message.text } : null;
    case 'tool_use':
      return isString(message.name) && isString(message.label)
        ? { type: 'tool_use', name: message.name, label: message.label }
        : null;
    case 'thinking':
      return { type: 'thinking' };
    case 'info':
      return isString(message.message) ? { type: 'info', message: message.message } : null;
    case 'result':
      return isString(message.summary) ? { type: 'result', summary: message.summary } : null;
    case 'file':
      return isString(message.path) && typeof message.size === 'number'
        ? { type: 'file', path: message.path, size: message.size }
        : null;
    default:
      return null;
  }
}
