// Reads CSV on stdin and prints exact per-column statistics as JSON. Deliberately small:
// quoted fields with commas and doubled quotes are handled; embedded newlines are not.
import { readFileSync } from 'node:fs';

function parseLine(line) {
  const fields = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields.map((value) => value.trim());
}

function numberStats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const count = sorted.length;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / count;
  const middle = Math.floor(count / 2);
  const median = count % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  const variance = count > 1 ? sorted.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (count - 1) : 0;
  return { min: sorted[0], max: sorted[count - 1], mean, median, stddev: Math.sqrt(variance) };
}

function textStats(values) {
  const counts = new Map();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 5);
  return { distinct: counts.size, top: top.map(([value, count]) => ({ value, count })) };
}

const lines = readFileSync(0, 'utf8')
  .split(/\r?\n/)
  .filter((line) => line.trim() !== '');
if (lines.length < 2) {
  console.log(JSON.stringify({ error: 'expected a header row and at least one data row' }));
  process.exit(1);
}
const header = parseLine(lines[0]);
const rows = lines.slice(1).map(parseLine);
const columns = header.map((name, index) => {
  const raw = rows.map((row) => row[index] ?? '');
  const present = raw.filter((value) => value !== '');
  const numbers = present.map(Number);
  const numeric = present.length > 0 && numbers.every((value) => Number.isFinite(value));
  const base = { name, count: present.length, missing: raw.length - present.length };
  return numeric ? { ...base, type: 'number', ...numberStats(numbers) } : { ...base, type: 'text', ...textStats(present) };
});
console.log(JSON.stringify({ rows: rows.length, columns }, null, 2));
