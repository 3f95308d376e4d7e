import type { AttributeDef, AttributeUse, ResolvedRegistry } from './model.js';

/** `agent.skill.trigger.type` -> `AGENT_SKILL_TRIGGER_TYPE` */
export function constName(id: string): string {
  return id
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .toUpperCase();
}

/** `agent.skill.trigger.type` -> `AgentSkillTriggerType` */
export function typeName(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** The group id of the attribute group listing the only allowed client metric dimensions. */
export const METRIC_DIMENSIONS_GROUP = 'agent.skill.metric_dimensions';

/** The closed set of values an attribute (or each element of an array attribute) may take, if any. */
export function allowedValues(def: AttributeDef, byId: Map<string, AttributeDef>): (string | number)[] | undefined {
  if (def.members !== undefined) return def.members.map((m) => m.value);
  if (def.values !== undefined) return def.values;
  if (def.valuesFrom !== undefined) return byId.get(def.valuesFrom)?.members?.map((m) => m.value);
  return undefined;
}

export interface RequirementLists {
  required: string[];
  conditionallyRequired: { id: string; condition: string }[];
  recommended: string[];
  optIn: string[];
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Split resolved attribute uses by requirement level, each list sorted by attribute id. */
export function splitByRequirement(uses: AttributeUse[]): RequirementLists {
  const lists: RequirementLists = { required: [], conditionallyRequired: [], recommended: [], optIn: [] };
  for (const u of uses) {
    if (u.requirement.level === 'required') lists.required.push(u.id);
    else if (u.requirement.level === 'conditionally_required') lists.conditionallyRequired.push({ id: u.id, condition: u.requirement.condition ?? '' });
    else if (u.requirement.level === 'opt_in') lists.optIn.push(u.id);
    else lists.recommended.push(u.id);
  }
  lists.required.sort(byString);
  lists.recommended.sort(byString);
  lists.optIn.sort(byString);
  lists.conditionallyRequired.sort((a, b) => byString(a.id, b.id));
  return lists;
}

/** Fail loudly if two ids would produce the same generated identifier. */
export function assertUniqueNames(registry: ResolvedRegistry): void {
  const seen = new Map<string, string>();
  const claim = (name: string, owner: string) => {
    const prior = seen.get(name);
    if (prior !== undefined && prior !== owner) throw new Error(`generated name ${name} would be produced by both ${prior} and ${owner}; rename one of them`);
    seen.set(name, owner);
  };
  for (const a of registry.attributes) {
    claim(`ATTR_${constName(a.id)}`, a.id);
    claim(typeName(a.id), a.id);
    for (const m of a.members ?? []) claim(`${constName(a.id)}_VALUE_${constName(m.id)}`, `${a.id}=${m.id}`);
  }
  for (const e of registry.events) claim(`EVENT_${constName(e.name)}`, e.name);
  for (const m of registry.metrics) claim(`METRIC_${constName(m.name)}`, m.name);
}
