import type { EnablementOverrides, InstallationRecord, SkillRecord } from '../library/types.js';

/**
 * Per-skill, per-agent enablement. Pure functions. An agent override wins over the `*` override,
 * which wins over the skill's default_enabled.
 */

export function isEnabled(overrides: EnablementOverrides, skill: Pick<SkillRecord, 'name' | 'defaultEnabled'>, agent: string): boolean {
  const o = overrides[skill.name];
  if (o && agent in o) return o[agent];
  if (o && '*' in o) return o['*'];
  return skill.defaultEnabled;
}

/** The skills of `record` that `agent` should see enabled. */
export function enabledSkillNames(record: Pick<InstallationRecord, 'skills' | 'enablement'>, agent: string): Set<string> {
  return new Set(record.skills.filter((s) => isEnabled(record.enablement, s, agent)).map((s) => s.name));
}

/**
 * New overrides after enabling or disabling `skill`: for every agent when `agents` is undefined
 * (a `*` entry that replaces per-agent ones), else for the listed agents only.
 */
export function withOverride(overrides: EnablementOverrides, skill: string, enabled: boolean, agents?: readonly string[]): EnablementOverrides {
  const next: EnablementOverrides = structuredClone(overrides);
  if (!agents) next[skill] = { '*': enabled };
  else {
    next[skill] = { ...(next[skill] ?? {}) };
    for (const a of agents) next[skill][a] = enabled;
  }
  return next;
}

/** Drops overrides of skills a release no longer contains. */
export function pruneOverrides(overrides: EnablementOverrides, skills: readonly SkillRecord[]): EnablementOverrides {
  const names = new Set(skills.map((s) => s.name));
  return Object.fromEntries(Object.entries(overrides).filter(([name]) => names.has(name)));
}
