import { isAbsolute, join, resolve } from 'node:path';

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
