/**
 * What a thread's notification says, as a person reads it. The model is shown it wrapped and
 * entity-escaped (thread-history.ts); people get the words without the wrapper, the
 * entities read back, and a run's end without its id (the record carries the id to link to).
 */
export function notificationWords(text: string): string {
  const body = text
    .replace(/^<notification>/, '')
    .replace(/<\/notification>$/, '')
    .replace(/&(lt|gt|amp);/g, (_entity, name: string) => (name === 'lt' ? '<' : name === 'gt' ? '>' : '&'));
  const ended = /^Run \S+ of (\S+) (completed|failed): ([\s\S]*)$/.exec(body);
  if (!ended) return body;
  const [, skill, how, detail] = ended;
  return how === 'completed' ? `The ${skill} run finished: ${detail}` : `The ${skill} run failed: ${detail}`;
}
