import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { PROJECT_ROOT } from '../../../src/paths.js';
import type { SkillItem } from '../../../src/sdk/types.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

/**
 * Prices people can trust (issue 51, item 3): an agent skill's model calls are paid on top
 * of its price, so its skill object says about how many Ds a typical run's calls cost, from
 * the model's prices; a caller with a model key of their own pays 0 Ds for them. And the
 * run form's files are offered only where the skill reads them.
 */

const BUILT_INS = readdirSync(path.join(PROJECT_ROOT, 'skills'));
const AGENT_BUILT_INS = ['chart', 'data-summariser', 'pdf', 'report-writer', 'site-builder', 'xlsx'];

async function skillsOf(api: Client, person: TestUser): Promise<Record<string, SkillItem>> {
  const listed = await api.get<{ items: SkillItem[] }>('/api/v1/marketplace/skills?limit=100', { headers: session(person) });
  expect(listed.status, listed.text).toBe(200);
  return Object.fromEntries(listed.body.items.map((skill) => [skill.slug, skill]));
}

const it = withServer({
  ANTHROPIC_MODEL: 'claude-sonnet-4-6',
  MODEL_PRICES: '{"gpt-test": {"input": 15, "output": 60}}',
}).extend('person', ({ api }) => signUp(api));

describe('what a skill costs, model use included', () => {
  it('gives every agent built-in an estimate of its model use, and no script skill one', async ({ api, person }) => {
    const skills = await skillsOf(api, person);
    for (const slug of BUILT_INS) {
      const skill = skills[slug];
      expect(skill, slug).toBeDefined();
      if (AGENT_BUILT_INS.includes(slug)) {
        expect(skill?.runtime, slug).toBe('agent');
        expect(skill?.modelUse, slug).toMatchObject({ model: 'claude-sonnet-4-6', ownKey: false });
        // Six calls of a few thousand tokens each on Sonnet: cents, not fractions of one, nor dollars.
        expect(skill?.modelUse?.aboutDs, slug).toBeGreaterThanOrEqual(5);
        expect(skill?.modelUse?.aboutDs, slug).toBeLessThanOrEqual(60);
      } else {
        expect(skill?.runtime, slug).toBe('script');
        expect(skill?.modelUse, slug).toBeNull();
      }
    }
  });

  it('says a skill that names its model is estimated at that model', async ({ api, person }) => {
    const skills = await skillsOf(api, person);
    // test/skills/agent-gpt names gpt-test, priced here at a twentieth of Sonnet.
    expect(skills['agent-gpt']?.modelUse?.model).toBe('gpt-test');
    expect(skills['agent-gpt']?.modelUse?.aboutDs).toBeLessThan(skills['report-writer']?.modelUse?.aboutDs ?? 0);
  });

  it('tells a caller with a model key of their own that model use costs them nothing, and no one else', async ({
    api,
    person,
  }) => {
    const other = await signUp(api);
    const stored = await api.put('/api/v1/byok', { body: { key: `sk-ant-${'k'.repeat(40)}` }, headers: session(person) });
    expect(stored.status).toBe(200);
    expect((await skillsOf(api, person)).chart?.modelUse?.ownKey).toBe(true);
    expect((await skillsOf(api, other)).chart?.modelUse?.ownKey).toBe(false);
    await api.delete('/api/v1/byok', { headers: session(person) });
    expect((await skillsOf(api, person)).chart?.modelUse?.ownKey).toBe(false);
  });

  it('offers files only to the built-ins that read them', async ({ api, person }) => {
    const skills = await skillsOf(api, person);
    const reading = BUILT_INS.filter((slug) => skills[slug]?.takesFiles).sort();
    // The computer's agent skills read uploads; csv-chart says so in its SKILL.md; Ticker and the rest take text.
    expect(reading).toEqual(['chart', 'csv-chart', 'pdf', 'xlsx']);
  });
});

const free = withServer({
  ANTHROPIC_MODEL: 'claude-sonnet-4-6',
  MODEL_PRICES: '{"claude-sonnet-4-6": {"input": 0, "output": 0}}',
}).extend('person', ({ api }) => signUp(api));
const dear = withServer({
  ANTHROPIC_MODEL: 'claude-sonnet-4-6',
  MODEL_PRICES: '{"claude-sonnet-4-6": {"input": 3000, "output": 15000}}',
}).extend('person', ({ api }) => signUp(api));

describe('the estimate follows the model prices the server is set with', () => {
  free('is 0 Ds for a model priced at 0 (a local model)', async ({ api, person }) => {
    expect((await skillsOf(api, person)).chart?.modelUse).toEqual({ model: 'claude-sonnet-4-6', aboutDs: 0, ownKey: false });
  });

  dear('is about ten times as much at ten times the price', async ({ api, person }) => {
    const tenfold = (await skillsOf(api, person))['report-writer']?.modelUse?.aboutDs ?? 0;
    expect(tenfold).toBeGreaterThanOrEqual(50);
    expect(tenfold).toBeLessThanOrEqual(600);
  });
});
