import type { Diagnostic } from '../../core/errors/index.js';
import { isJsonObject, type JsonObject } from '../config/json-edit.js';

/** One OpenCode permission rule, as its `fromConfig` flattens a `permission` object. */
export interface Rule {
  permission: string;
  pattern: string;
  action: string;
  /** where the rule is in the config, e.g. ['permission', 'skill', '*'] */
  path: string[];
}

/** OpenCode's Wildcard.match: `*` any run, `?` one character, anchored. */
export function wildcardMatch(value: string, pattern: string): boolean {
  let re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  if (re.endsWith(' .*')) re = re.slice(0, -3) + '( .*)?';
  return new RegExp(`^${re}$`, 's').test(value);
}

/** `{ skill: "ask", bash: { "*": "allow" } }` -> rules in key order (OpenCode's Permission.fromConfig). */
export function rulesFrom(permission: unknown, at: string[] = ['permission']): Rule[] {
  if (!isJsonObject(permission)) return [];
  const rules: Rule[] = [];
  for (const [perm, value] of Object.entries(permission)) {
    if (typeof value === 'string') rules.push({ permission: perm, pattern: '*', action: value, path: [...at, perm] });
    else if (isJsonObject(value)) for (const [pattern, action] of Object.entries(value)) rules.push({ permission: perm, pattern, action: String(action), path: [...at, perm, pattern] });
  }
  return rules;
}

/** The rule that decides: the last matching one (OpenCode's Permission.evaluate); none means "ask". */
export function decidingRule(permission: string, pattern: string, rules: Rule[]): Rule | undefined {
  return rules.findLast((r) => wildcardMatch(permission, r.permission) && wildcardMatch(pattern, r.pattern));
}

/** The last matching rule wins; no match is "ask" (OpenCode's Permission.evaluate). */
export function evaluate(permission: string, pattern: string, rules: Rule[]): string {
  return decidingRule(permission, pattern, rules)?.action ?? 'ask';
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

/** One config file OpenCode merges, and what it holds. */
export interface ConfigLayer {
  file: string;
  doc: JsonObject;
}

/** A merged config and, for every value in it, the file it came from. */
export interface MergedConfig {
  config: JsonObject;
  /** the file the value at `path` came from (the last layer that set it) */
  origin(path: string[]): string | undefined;
}

/** mergeConfigs over `layers`, remembering which file each value came from. */
export function mergeLayers(layers: ConfigLayer[]): MergedConfig {
  const origins = new Map<string, string>();
  const mark = (path: string[], v: unknown, file: string) => {
    origins.set(JSON.stringify(path), file);
    if (isJsonObject(v)) for (const [k, x] of Object.entries(v)) mark([...path, k], x, file);
  };
  for (const { file, doc } of layers) for (const [k, v] of Object.entries(doc)) mark([k], v, file);
  return { config: mergeConfigs(layers.map((l) => l.doc)), origin: (path) => origins.get(JSON.stringify(path)) };
}

/**
 * Disabled skills that some agent would still be allowed (or asked) to load under `merged` (the
 * merged OpenCode config): top-level rules apply to every agent, an agent's own `permission`
 * rules come after them and can re-allow a skill, e.g. `"*": "allow"` or `skill: "allow"`. Each
 * finding names the rule that decides and the file it is in; `file` is the one Forge edits.
 */
export function exposedDisabledSkills(merged: JsonObject | MergedConfig, disabled: { skillId: string; name: string }[], file: string): Diagnostic[] {
  const { config, origin } = 'origin' in merged && typeof merged.origin === 'function' ? merged as MergedConfig : { config: merged as JsonObject, origin: () => undefined };
  const top = rulesFrom(config.permission);
  const scopes: [string, Rule[]][] = [['all agents', top]];
  if (isJsonObject(config.agent)) {
    for (const [name, agent] of Object.entries(config.agent)) {
      if (isJsonObject(agent) && agent.permission !== undefined) scopes.push([`agent "${name}"`, [...top, ...rulesFrom(agent.permission, ['agent', name, 'permission'])]]);
    }
  }
  const out: Diagnostic[] = [];
  for (const skill of disabled) {
    for (const [scope, rules] of scopes) {
      const rule = decidingRule('skill', skill.name, rules);
      const action = rule?.action ?? 'ask';
      if (action === 'deny') continue;
      const forge = `"permission.skill.${skill.name}": "deny"`;
      if (!rule) {
        out.push({ code: 'SF_DRIFT_DISABLED_EXPOSED', severity: 'error', file, errorCode: 'SF_E_CONFLICT',
          message: `${skill.skillId} is disabled, but OpenCode's permission rules let ${scope} "${action}" the skill "${skill.name}": no rule denies it (Forge's ${forge} is missing from ${file})`,
          hint: 'run `sf skit doctor --fix` to restore it, or `sf skit enable` if you want the skill on' });
        continue;
      }
      const key = rule.path.join('.');
      const where = origin(rule.path) ?? file;
      out.push({ code: 'SF_DRIFT_DISABLED_EXPOSED', severity: 'error', file: where, errorCode: 'SF_E_CONFLICT',
        message: `${skill.skillId} is disabled, but OpenCode's permission rules let ${scope} "${action}" the skill "${skill.name}": "${key}": ${JSON.stringify(rule.action)} in ${where} is the last rule that matches it, so it overrides Forge's ${forge} in ${file}`,
        hint: `OpenCode merges all its config files and the last matching permission rule wins: remove or narrow "${key}" in ${where} (Forge does not edit it), then run the command again.` });
    }
  }
  return out;
}
