import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HostContext } from '../../core/install/host-adapter.js';
import { reconcileJsonConfig, type JsonReconcileOptions, type JsonReconcileResult } from '../config/json-host-config.js';
import type { ManagedConfigEdit } from '../config/managed.js';

/** OpenCode's global config dir: $XDG_CONFIG_HOME/opencode, else ~/.config/opencode. */
export function opencodeConfigDir(ctx: HostContext): string {
  return join(ctx.env.XDG_CONFIG_HOME || join(ctx.home, '.config'), 'opencode');
}

/**
 * The config file Forge edits, chosen like OpenCode's own `opencode mcp add`: the first existing of
 * opencode.json, opencode.jsonc, .opencode/opencode.json, .opencode/opencode.jsonc in the project
 * (else a new opencode.json there); for the user, opencode.jsonc, opencode.json or config.json in
 * the global config dir (else a new opencode.jsonc, as OpenCode itself would create).
 */
export function opencodeConfigFile(ctx: HostContext): string {
  const candidates = ctx.scope === 'project'
    ? ['opencode.json', 'opencode.jsonc', '.opencode/opencode.json', '.opencode/opencode.jsonc'].map((f) => join(ctx.projectRoot ?? '.', f))
    : ['opencode.jsonc', 'opencode.json', 'config.json'].map((f) => join(opencodeConfigDir(ctx), f));
  return candidates.find((f) => existsSync(f)) ?? candidates[0];
}

/**
 * OpenCode's managed config dir: $OPENCODE_TEST_MANAGED_CONFIG_DIR (OpenCode's own override, which
 * tests use), else /etc/opencode (macOS: /Library/Application Support/opencode, Windows:
 * %ProgramData%\opencode), as OpenCode 1.18's managedConfigDir() names it.
 */
export function opencodeManagedDir(ctx: HostContext): string {
  if (ctx.env.OPENCODE_TEST_MANAGED_CONFIG_DIR) return ctx.env.OPENCODE_TEST_MANAGED_CONFIG_DIR;
  if (process.platform === 'darwin') return '/Library/Application Support/opencode';
  if (process.platform === 'win32') return join(ctx.env.ProgramData || 'C:\\ProgramData', 'opencode');
  return '/etc/opencode';
}

/**
 * One config OpenCode merges: a file, or an environment variable's value (`text`): a whole config
 * for OPENCODE_CONFIG_CONTENT, the `permission` object alone for OPENCODE_PERMISSION.
 */
export type OpenCodeLayerSource = { file: string } | { variable: 'OPENCODE_CONFIG_CONTENT' | 'OPENCODE_PERMISSION'; text: string };

/**
 * Every config OpenCode merges for this context, in its merge order (later ones override earlier
 * ones), as OpenCode 1.18 loads them (checked against the binary by layers.test.ts): the global
 * dir's config.json, opencode.json, opencode.jsonc; $OPENCODE_CONFIG; in a project opencode.json,
 * opencode.jsonc, .opencode/opencode.json, .opencode/opencode.jsonc; then ~/.opencode/opencode.json(c),
 * which OpenCode always loads, and $OPENCODE_CONFIG_DIR's; then $OPENCODE_CONFIG_CONTENT (a whole
 * config); the managed dir's opencode.json(c); last $OPENCODE_PERMISSION, merged into `permission`.
 * A user-scope installation applies in every project, whose files Forge cannot know: only the
 * configs loaded everywhere are listed then.
 */
export function opencodeConfigSources(ctx: HostContext): OpenCodeLayerSource[] {
  const pair = (dir: string) => [join(dir, 'opencode.json'), join(dir, 'opencode.jsonc')];
  const files = [join(opencodeConfigDir(ctx), 'config.json'), ...pair(opencodeConfigDir(ctx))];
  if (ctx.env.OPENCODE_CONFIG) files.push(resolve(ctx.projectRoot ?? ctx.home, ctx.env.OPENCODE_CONFIG));
  if (ctx.scope === 'project') {
    const root = ctx.projectRoot ?? '.';
    files.push(...pair(root), ...pair(join(root, '.opencode')));
  }
  files.push(...pair(join(ctx.home, '.opencode')));
  if (ctx.env.OPENCODE_CONFIG_DIR) files.push(...pair(resolve(ctx.projectRoot ?? ctx.home, ctx.env.OPENCODE_CONFIG_DIR)));
  // a directory listed twice (a project in the home directory) is loaded once, where it first appears
  const out: OpenCodeLayerSource[] = files.filter((f, i) => files.indexOf(f) === i).map((file) => ({ file }));
  if (ctx.env.OPENCODE_CONFIG_CONTENT) out.push({ variable: 'OPENCODE_CONFIG_CONTENT', text: ctx.env.OPENCODE_CONFIG_CONTENT });
  // loaded after everything else, whatever was loaded before
  out.push(...pair(opencodeManagedDir(ctx)).map((file) => ({ file })));
  if (ctx.env.OPENCODE_PERMISSION) out.push({ variable: 'OPENCODE_PERMISSION', text: ctx.env.OPENCODE_PERMISSION });
  return out;
}

/** The config files of opencodeConfigSources, in order (what OpenCode logs as "loading path="). */
export function opencodeConfigLayers(ctx: HostContext): string[] {
  return opencodeConfigSources(ctx).flatMap((s) => ('file' in s ? [s.file] : []));
}

export interface OpenCodeSkillState {
  skillId: string;
  name: string;
  enabled: boolean;
}

export const DENY = 'deny';

/**
 * Brings Forge's `permission.skill.<name>` entries to `skills`: "deny" for disabled skills (OpenCode
 * drops them from the list shown to the model and refuses the call), none for enabled ones, so the
 * user's own allow/ask rules keep governing them. OpenCode lets the last matching rule win and
 * new keys are appended at the end of the object, so Forge's exact-name deny outranks wildcards.
 */
export function reconcileOpenCodePermission(
  file: string, backupDir: string, previous: ManagedConfigEdit | undefined, skills: OpenCodeSkillState[],
  hooks: Pick<JsonReconcileOptions, 'adopt' | 'validate' | 'dryRun'> = {},
): Promise<JsonReconcileResult> {
  return reconcileJsonConfig({
    ...hooks, file, backupDir, previous, format: file.endsWith('.jsonc') ? 'jsonc' : 'json', disabledValue: DENY,
    expandable: { path: ['permission', 'skill'], wildcard: '*' },
    desired: skills.map((s) => ({ skillId: s.skillId, skillName: s.name, path: ['permission', 'skill', s.name], value: s.enabled ? undefined : DENY })),
  });
}
