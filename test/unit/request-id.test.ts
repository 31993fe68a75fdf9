import { describe, expect, it } from 'vitest';
import { freshRequestId, requestIdFrom } from '../../src/http/request-id.js';

/** RFC 9562's layout with version 8 ("custom") and the variant bits 10xx. */
const VERSION_8_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('are fresh UUIDs of version 8, each different, sharing only the process part', () => {
    const ids = Array.from({ length: 10_000 }, () => freshRequestId());
    for (const id of ids) expect(id).toMatch(VERSION_8_UUID);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(0, 24))).size).toBe(1);
    const counts = ids.map((id) => Number.parseInt(id.slice(24), 16));
    expect(counts.every((count, i) => i === 0 || count === (counts[i - 1] as number) + 1)).toBe(true);
  });

  it("keep a client's own id when it is one well-formed value, and make one otherwise", () => {
    expect(requestIdFrom('trace-42:a/b+c=d@e.f')).toBe('trace-42:a/b+c=d@e.f');
    expect(requestIdFrom(['only-one'])).toBe('only-one');
    for (const refused of [undefined, '', 'has space', 'line\nbreak', 'x'.repeat(129), ['a', 'b'], 'é']) {
      expect(requestIdFrom(refused)).toMatch(VERSION_8_UUID);
    }
  });
});
