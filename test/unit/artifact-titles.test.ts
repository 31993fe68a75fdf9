import { describe, expect, it } from 'vitest';
import { headingOf, titleOf } from '../../src/artifacts/artifact-titles.js';

describe('an artifact’s title', () => {
  it('is the first line of a text input, clean and on one line', () => {
    expect(titleOf('  Make a chart  ', 'CSV chart')).toBe('Make a chart');
    expect(titleOf('\n\nQuarterly numbers\nregion,total\nnorth,4', 'CSV chart')).toBe('Quarterly numbers');
    expect(titleOf('# From the CLI\n\nSome text', 'Markdown to HTML')).toBe('From the CLI');
    expect(titleOf('tab\there\u0000and\u202enot reversed', 'x')).toBe('tab here and not reversed');
  });

  it('is cut at a word, with an ellipsis, when long', () => {
    const long = titleOf(`${'word '.repeat(40)}end`, 'x');
    expect(Array.from(long).length).toBeLessThanOrEqual(80);
    expect(long).toMatch(/^word( word)+…$/);
    expect(Array.from(titleOf('東'.repeat(500), 'x'))).toHaveLength(80);
  });

  it('is the title or name a JSON input gives, never the JSON itself', () => {
    expect(titleOf(JSON.stringify({ title: 'Meeting notes', files: [] }), 'Writer')).toBe('Meeting notes');
    expect(titleOf('{"name": "Site plan"}', 'Writer')).toBe('Site plan');
    expect(titleOf('{"city": "Oslo", "days": 3}', 'Weather')).toBe('Weather');
    expect(titleOf('[1, 2, 3]', 'Chart')).toBe('Chart');
    expect(titleOf('{not json', 'Writer')).toBe('Writer');
  });

  it('is the heading of what the run wrote, before a text input’s first line', () => {
    expect(titleOf('make me a page', 'Site builder', 'Garden plan')).toBe('Garden plan');
    expect(titleOf('{"title": "Asked for"}', 'Writer', 'Written')).toBe('Asked for');
  });

  it('is the skill’s name when the input is blank', () => {
    expect(titleOf(' \n ', 'CSV chart')).toBe('CSV chart');
    expect(titleOf('', ' ')).toBe('Artifact');
  });
});

describe('the heading of a written file', () => {
  it('reads an HTML page’s title, else its first h1, with entities and tags undone', () => {
    expect(headingOf('text/html', '<html><head><title> Q3 &amp; Q4\n report </title></head>')).toBe('Q3 & Q4 report');
    expect(headingOf('text/html', '<body><h1 class="x">Plan <em>B</em> &#8211; &#x41;</h1>')).toBe('Plan B – A');
    expect(headingOf('text/html', '<p>no heading</p>')).toBeUndefined();
    expect(headingOf('text/html', '<title>  </title>')).toBeUndefined();
  });

  it('reads a Markdown file’s first heading', () => {
    expect(headingOf('text/markdown', 'intro\n\n## Findings ##\n# Later')).toBe('Findings');
    expect(headingOf('text/markdown', 'no heading here')).toBeUndefined();
  });

  it('reads nothing from other files', () => {
    expect(headingOf('text/plain', '# not a heading')).toBeUndefined();
    expect(headingOf('application/json', '{"title":"x"}')).toBeUndefined();
  });
});
