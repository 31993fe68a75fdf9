import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';

const WIDTH = 720;
const BAR_HEIGHT = 26;
const GAP = 8;
const LABEL_WIDTH = 180;
const MAX_ROWS = 200;

function escapeXml(text) {
  return String(text).replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[char],
  );
}

const isNumber = (value) => value.trim() !== '' && Number.isFinite(Number(value.replace(/,/g, '')));

/** The first column whose every value is a number, and the first one that is not. */
export function chooseColumns(header, rows) {
  const numeric = header.findIndex((_, column) => rows.every((row) => isNumber(row[column] ?? '')));
  if (numeric < 0) throw new Error('no column holds only numbers');
  const label = header.findIndex((_, column) => column !== numeric && !rows.every((row) => isNumber(row[column] ?? '')));
  return { numeric, label };
}

export function barChart(title, bars) {
  const max = Math.max(...bars.map((bar) => bar.value), 0) || 1;
  const plot = WIDTH - LABEL_WIDTH - 90;
  const height = 50 + bars.length * (BAR_HEIGHT + GAP);
  const rows = bars.map((bar, i) => {
    const y = 40 + i * (BAR_HEIGHT + GAP);
    const width = Math.max(0, (bar.value / max) * plot);
    return [
      `<text x="${LABEL_WIDTH - 8}" y="${y + 18}" text-anchor="end">${escapeXml(bar.label)}</text>`,
      `<rect x="${LABEL_WIDTH}" y="${y}" width="${width.toFixed(1)}" height="${BAR_HEIGHT}" rx="3" fill="#c2410c"/>`,
      `<text x="${LABEL_WIDTH + width + 6}" y="${y + 18}">${escapeXml(bar.value)}</text>`,
    ].join('');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="14">
<text x="${LABEL_WIDTH}" y="24" font-size="17" font-weight="600">${escapeXml(title)}</text>
${rows.join('\n')}
</svg>
`;
}

/**
 * The run's first .csv file, by name, among the files it was given in ./uploads/ (an
 * artifact's files sit in a folder of their own); undefined when it was given none.
 */
async function attachedCsv() {
  const entries = await readdir('uploads', { recursive: true, withFileTypes: true }).catch((error) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  if (files.length === 0) return undefined;
  const csv = files.find((file) => file.toLowerCase().endsWith('.csv'));
  if (!csv) {
    const names = files.map((file) => path.relative('uploads', file)).join(', ');
    throw new Error(`none of the attached files is a .csv file (${names}); attach the CSV to chart, or give it as the input`);
  }
  return { name: path.relative('uploads', csv), text: await readFile(csv, 'utf8') };
}

export default async function run({ input, toolUse, writeFile, message, result }) {
  toolUse('parse', 'Reading the CSV');
  const file = await attachedCsv();
  const [header, ...rows] = parse((file?.text ?? input).trim(), { skip_empty_lines: true, relax_column_count: true, trim: true });
  const source = file ? ` of ${file.name}` : '';
  if (!header || rows.length === 0) throw new Error(`the CSV${source} needs a header row and at least one data row`);
  const { numeric, label } = chooseColumns(header, rows);
  const bars = rows.slice(0, MAX_ROWS).map((row, i) => ({
    label: label >= 0 ? row[label] : `row ${i + 1}`,
    value: Number(row[numeric].replace(/,/g, '')),
  }));
  await writeFile('chart.svg', barChart(header[numeric], bars));
  message(
    `Charted ${bars.length} rows of "${header[numeric]}"${source}${rows.length > MAX_ROWS ? ` (the first ${MAX_ROWS})` : ''} to chart.svg.`,
  );
  result('chart.svg');
}
