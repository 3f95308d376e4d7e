import type { Diagnostic } from '../../core/errors/index.js';
import { isJsonObject, type JsonObject } from '../config/json-edit.js';

/** One OpenCode permission rule, as its `fromConfig` flattens a `permission` object. */
export interface Rule {
  permission: string;
  pattern: string;
  action: string;
}

/** OpenCode's Wildcard.match: `*` any run, `?` one character, anchored. */
export function wildcardMatch(value: string, pattern: string): boolean {
  let re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  if (re.endsWith(' .*')) re = re.slice(0, -3) + '( .*)?';
  return new RegExp(`^${re}$`, 's').test(value);
}

/** `{ skill: "ask", bash: { "*": "allow" } }` -> rules in key order (OpenCode's Permission.fromConfig). */
export function rulesFrom(permission: unknown): Rule[] {
  if (!isJsonObject(permission)) return [];
  const rules: Rule[] = [];
  for (const [perm, value] of Object.entries(permission)) {
    if (typeof value === 'string') rules.push({ permission: perm, pattern: '*', action: value });
    else if (isJsonObject(value)) for (const [pattern, action] of Object.entries(value)) rules.push({ permission: perm, pattern, action: String(action) });
  }
  return rules;
}

/** The last matching rule wins; no match is "ask" (OpenCode's Permission.evaluate). */
export function evaluate(permission: string, pattern: string, rules: Rule[]): string {
  const hit = rules.findLast((r) => wildcardMatch(permission, r.permission) && wildcardMatch(pattern, r.pattern));
  return hit?.action ?? 'ask';
}

/** Deep merge with OpenCode's layering: later documents override, keys keep their first position. */
export function mergeConfigs(docs: JsonObject[]): JsonObject {
  const merge = (a: JsonObject, b: JsonObject): JsonObject => {
    const out: JsonObject = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = isJsonObject(v) && isJsonObject(out[k]) ? merge(out[k] as JsonObject, v) : v;
    return out;
  };
  return docs.reduce(merge, {});
}

/**
 * Disabled skills that some agent would still be allowed (or asked) to load under `config` (the
 * merged OpenCode config): top-level rules apply to every agent, an agent's own `permission`
 * rules come after them and can re-allow a skill, e.g. `"*": "allow"` or `skill: "allow"`.
 */
export function exposedDisabledSkills(config: JsonObject, disabled: { skillId: string; name: string }[], file: string): Diagnostic[] {
  const top = rulesFrom(config.permission);
  const scopes: [string, Rule[]][] = [['all agents', top]];
  if (isJsonObject(config.agent)) {
    for (const [name, agent] of Object.entries(config.agent)) {
      if (isJsonObject(agent) && agent.permission !== undefined) scopes.push([`agent "${name}"`, [...top, ...rulesFrom(agent.permission)]]);
    }
  }
  const out: Diagnostic[] = [];
  for (const skill of disabled) {
    for (const [scope, rules] of scopes) {
      const action = evaluate('skill', skill.name, rules);
      if (action === 'deny') continue;
      out.push({ code: 'SF_DRIFT_DISABLED_EXPOSED', severity: 'error', file, errorCode: 'SF_E_CONFLICT',
        message: `${skill.skillId} is disabled, but OpenCode's permission rules let ${scope} "${action}" the skill "${skill.name}"`,
        hint: `A later rule overrides Forge's permission.skill["${skill.name}"] = "deny" (e.g. a "*" permission key after "skill", or an agent's own permission); move or narrow it, then run the command again.` });
    }
  }
  return out;
}
