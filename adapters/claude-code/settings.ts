import { join } from 'node:path';
import type { HostContext } from '../../core/install/host-adapter.js';
import { reconcileJsonConfig, type JsonReconcileResult } from '../config/json-host-config.js';
import type { ManagedConfigEdit } from '../config/managed.js';

/** Claude Code's user config dir: $CLAUDE_CONFIG_DIR, else ~/.claude. */
export function claudeConfigDir(ctx: HostContext): string {
  return ctx.env.CLAUDE_CONFIG_DIR || join(ctx.home, '.claude');
}

/**
 * Where Forge keeps its `skillOverrides`: for a project, `.claude/settings.local.json` (the file
 * Claude Code itself suggests for project-skill overrides: per machine, not committed, like the
 * store symlinks it governs); for the user, `<config dir>/settings.json`.
 */
export function claudeSettingsFile(ctx: HostContext): string {
  if (ctx.scope === 'project') return join(ctx.projectRoot ?? '.', '.claude', 'settings.local.json');
  return join(claudeConfigDir(ctx), 'settings.json');
}

export interface ClaudeSkillState {
  skillId: string;
  name: string;
  enabled: boolean;
}

/** `skillOverrides.<name> = "off"` hides a skill from the model and from `/name`; absent means on. */
export const OFF = 'off';

/** Brings Forge's `skillOverrides` entries in `file` to `skills` (disabled -> "off", enabled -> none). */
export function reconcileClaudeSettings(file: string, backupDir: string, previous: ManagedConfigEdit | undefined, skills: ClaudeSkillState[], adopt?: (path: string[]) => boolean, dryRun?: boolean): Promise<JsonReconcileResult> {
  return reconcileJsonConfig({
    file, backupDir, previous, format: 'json', disabledValue: OFF, adopt, dryRun,
    desired: skills.map((s) => ({ skillId: s.skillId, skillName: s.name, path: ['skillOverrides', s.name], value: s.enabled ? undefined : OFF })),
  });
}
