const WORDS_PER_MINUTE = 230;
const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have he her his i in is it its of on or she that the their them they this to was were will with you your'.split(
    ' ',
  ),
);

/** Word, sentence and character counts, reading time and top terms of the input. */
export function textStats(text) {
  const words = text.match(/[\p{L}\p{N}'’-]+/gu) ?? [];
  const sentences = text.split(/[.!?…]+(?:\s|$)/u).filter((part) => part.trim() !== '');
  const frequency = new Map();
  for (const word of words) {
    const term = word.toLowerCase().replace(/^['’-]+|['’-]+$/g, '');
    if (term.length < 2 || STOP_WORDS.has(term)) continue;
    frequency.set(term, (frequency.get(term) ?? 0) + 1);
  }
  const topTerms = [...frequency.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 10)
    .map(([term, count]) => ({ term, count }));
  return {
    words: words.length,
    sentences: sentences.length,
    characters: [...text].length,
    charactersWithoutSpaces: [...text.replace(/\s/g, '')].length,
    readingTimeMinutes: Math.max(words.length === 0 ? 0 : 1, Math.round(words.length / WORDS_PER_MINUTE)),
    topTerms,
  };
}

export default async function run({ input, message, toolUse, writeFile, result }) {
  toolUse('count', 'Counting words and sentences');
  const stats = textStats(input);
  await writeFile('stats.json', `${JSON.stringify(stats, null, 2)}\n`);
  const top =
    stats.topTerms
      .slice(0, 3)
      .map((entry) => entry.term)
      .join(', ') || 'none';
  message(
    `${stats.words} words, ${stats.sentences} sentences, ${stats.characters} characters; about ${stats.readingTimeMinutes} min to read. Top terms: ${top}.`,
  );
  result(`${stats.words} words`);
}
