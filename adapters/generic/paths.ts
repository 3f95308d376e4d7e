import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { GenericAgentEntry } from './agents.js';

/**
 * Expands an agent path template (adapters/generic/agents.ts): a leading `~/` is the home
 * directory, `${VAR:-default}` is $VAR when set and non-empty, else `default` (itself a template).
 * Pure.
 *
 * @example expandAgentPath('${CLAUDE_CONFIG_DIR:-~/.claude}/skills', { home: '/h', env: {} }) // '/h/.claude/skills'
 */
export function expandAgentPath(template: string, ctx: { home: string; env: NodeJS.ProcessEnv }): string {
  const withVars = template.replace(/\$\{([A-Z_][A-Z0-9_]*):-([^}]*)\}/g, (_, name: string, fallback: string) => {
    const value = ctx.env[name];
    return value && value.trim().length > 0 ? value.trim() : fallback;
  });
  if (withVars === '~') return ctx.home;
  if (withVars.startsWith('~/')) return join(ctx.home, withVars.slice(2));
  return isAbsolute(withVars) ? withVars : resolve(ctx.home, withVars);
}

/**
 * The global skill directory of `entry`, or null when it has none: `user`, unless its home does not
 * exist and a legacy home does (the first in `legacyUser`), which the agent then still reads.
 * Nothing exists yet: `user`, so a new install goes to the current home.
 */
export function userSkillDir(entry: Pick<GenericAgentEntry, 'user' | 'legacyUser'>, ctx: { home: string; env: NodeJS.ProcessEnv }): string | null {
  if (!entry.user) return null;
  const current = expandAgentPath(entry.user, ctx);
  if (!entry.legacyUser || existsSync(dirname(current))) return current;
  const legacy = entry.legacyUser.map((t) => expandAgentPath(t, ctx)).find((dir) => existsSync(dirname(dir)));
  return legacy ?? current;
}
