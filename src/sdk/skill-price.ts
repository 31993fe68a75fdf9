import type { SkillItem } from './types.js';

type Priced = Pick<SkillItem, 'price' | 'modelUse'>;

/** A skill's price, short, for lists and badges: "Free", "1 Ds per run", "1 Ds + model use (about 17 Ds a run)". */
export function priceLabel(skill: Priced): string {
  const use = skill.modelUse;
  if (!use) return skill.price === 0 ? 'Free' : `${skill.price} Ds per run`;
  const model = use.ownKey ? 'model use on your own key (0 Ds)' : `model use (about ${use.aboutDs} Ds a run)`;
  return skill.price === 0 ? model.charAt(0).toUpperCase() + model.slice(1) : `${skill.price} Ds + ${model}`;
}

/**
 * What the model-use part of the price rests on, in a sentence; null for a skill that calls
 * no model. It is an estimate, and says so: a run's real cost is known when it ends.
 */
export function modelUseNote(skill: Priced): string | null {
  const use = skill.modelUse;
  if (!use) return null;
  if (use.ownKey) {
    const charged = skill.price > 0 ? `only the skill's price (${skill.price} Ds) is charged` : 'a run costs you nothing';
    return `Its model calls (${use.model}) ride on your own model key, so they cost you 0 Ds here; ${charged}.`;
  }
  return (
    `Its model calls (${use.model}) are charged by the tokens they use${skill.price > 0 ? ', on top of its price' : ''}. ` +
    `About ${use.aboutDs} Ds is an estimate ` +
    "for a typical run, from the model's prices; a long input or a long task costs more, and each run shows what it really cost when it ends. " +
    'With your own model key (under Billing) model calls cost 0 Ds.'
  );
}
