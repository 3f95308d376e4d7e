import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Diagnostic } from '../../core/errors/index.js';
import type { HostContext } from '../../core/install/host-adapter.js';
import { memoJsonConfig } from '../config/json-diagnose.js';
import { memoized } from '../shared/memo.js';
import { claudeSettingsFile, OFF } from './settings.js';

/**
 * Moves the managed settings directory Forge checks (tests; Claude Code itself has no such
 * variable and always reads the platform's directory).
 */
export const CLAUDE_MANAGED_DIR_VAR = 'SF_TEST_CLAUDE_MANAGED_DIR';

/** Claude Code's managed (policy) settings directory, as its binary names it per platform. */
export function claudeManagedDir(ctx: HostContext): string {
  const override = ctx.env[CLAUDE_MANAGED_DIR_VAR];
  if (override) return override;
  if (process.platform === 'darwin') return '/Library/Application Support/ClaudeCode';
  if (process.platform === 'win32') return 'C:\\Program Files\\ClaudeCode';
  return '/etc/claude-code';
}

/** One settings file Claude Code reads whose skillOverrides outrank the file Forge edits. */
export interface ClaudeLayer {
  file: string;
  source: 'project' | 'local' | 'managed';
}

/**
 * The settings files whose `skillOverrides` outrank Forge's entry, lowest first. Claude Code ranks
 * user < project (`.claude/settings.json` in the directory it runs in) < local
 * (`.claude/settings.local.json` at the repository root around it) < flag (`--settings`, which
 * Forge cannot see) < policy (`managed-settings.json`, then `managed-settings.d/*.json` in name
 * order, a later file winning). Forge writes the local file of a project install, so only policy
 * outranks it there; a user install is outranked by the project files wherever Claude Code runs,
 * and only those around `ctx.cwd` can be known.
 */
export function claudeLayersAbove(ctx: HostContext): ClaudeLayer[] {
  const out: ClaudeLayer[] = [];
  if (ctx.scope === 'user' && ctx.cwd !== undefined) {
    const cwd = resolve(ctx.cwd);
    out.push({ file: join(cwd, '.claude', 'settings.json'), source: 'project' });
    out.push({ file: join(repositoryRoot(cwd, ctx.home) ?? cwd, '.claude', 'settings.local.json'), source: 'local' });
  }
  const managed = claudeManagedDir(ctx);
  out.push({ file: join(managed, 'managed-settings.json'), source: 'managed' });
  for (const name of dropIns(join(managed, 'managed-settings.d'))) out.push({ file: join(managed, 'managed-settings.d', name), source: 'managed' });
  // run in the home directory, the "project" file is the user's own
  const own = resolve(claudeSettingsFile(ctx));
  return out.filter((l) => resolve(l.file) !== own);
}

/** The first directory holding `.git` from `cwd` up, below the home directory (Claude Code keeps local settings there). */
function repositoryRoot(cwd: string, home: string): string | undefined {
  const homeDir = resolve(home);
  for (let dir = cwd; dir !== homeDir; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) break;
  }
  return undefined;
}

/** The drop-in files Claude Code reads: `*.json`, not hidden, files or links, in name order. */
function dropIns(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith('.json') && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

const VALUES = new Set(['on', 'name-only', 'user-invocable-only', 'off']);

/**
 * A layer's `skillOverrides`, as Claude Code takes it: strict JSON (a comment or trailing comma
 * makes it skip the whole file), a BOM allowed; a file it cannot read or parse changes nothing.
 */
function overridesOf(file: string, memo: HostContext['memo']): Promise<Record<string, unknown> | undefined> {
  return memoized(`claude-layer\u0000${file}`, async () => {
    try {
      const doc: unknown = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
      const o = (doc as { skillOverrides?: unknown } | null)?.skillOverrides;
      return o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }, memo);
}

const LABEL: Record<ClaudeLayer['source'], string> = {
  project: 'project settings',
  local: 'local project settings',
  managed: 'managed (policy) settings',
};

/**
 * Disabled skills whose switch a settings file above Forge's turns back on: the highest layer
 * with a valid value for the name decides (an invalid value is dropped by Claude Code), and
 * anything but "off" exposes the skill. One finding per skill, naming that file and key.
 */
export async function claudeOverridesAbove(ctx: HostContext, disabled: { skillId: string; name: string }[], severity: Diagnostic['severity']): Promise<Diagnostic[]> {
  if (disabled.length === 0) return [];
  const layers = claudeLayersAbove(ctx).reverse();
  const forgeFile = claudeSettingsFile(ctx);
  const out: Diagnostic[] = [];
  for (const s of disabled) {
    for (const layer of layers) {
      const overrides = await overridesOf(layer.file, ctx.memo);
      const value = overrides && Object.hasOwn(overrides, s.name) ? overrides[s.name] : undefined;
      if (typeof value !== 'string' || !VALUES.has(value)) continue;
      if (value !== OFF) out.push(finding(ctx, s, layer, value, forgeFile, severity));
      break;
    }
  }
  return out;
}

function finding(ctx: HostContext, s: { skillId: string; name: string }, layer: ClaudeLayer, value: string, forgeFile: string, severity: Diagnostic['severity']): Diagnostic {
  const key = `skillOverrides.${s.name}`;
  const where = layer.source === 'managed' ? '' : ` when it runs in ${ctx.cwd}`;
  const hint = layer.source === 'managed'
    ? `Managed settings come from your administrator and outrank every other file: ask them to remove "${key}" from ${layer.file} (Forge does not edit it), or run \`sf skit enable ${s.skillId}\` if the skill is meant to be on.`
    : `Claude Code lets a project's settings outrank the user's, so a user-scope switch cannot turn the skill off there: remove or change "${key}" in ${layer.file} (Forge does not edit it).`;
  return {
    code: 'SF_DRIFT_DISABLED_EXPOSED', severity, file: layer.file, errorCode: 'SF_E_CONFLICT',
    message: `${s.skillId} is disabled, but Claude Code${where} reads "${key}": ${JSON.stringify(value)} from its ${LABEL[layer.source]} ${layer.file}, which outrank Forge's "off" in ${forgeFile}`,
    hint,
  };
}

/**
 * Disabled skills whose "off" sits in a file Claude Code skips whole: it reads settings as strict
 * JSON, and Forge's edits keep the user's comments and trailing commas, which Claude Code does not
 * take. One finding for the file, naming the skills it leaves on.
 */
export async function claudeSkipsForgeFile(ctx: HostContext, disabled: { skillId: string; name: string }[], severity: Diagnostic['severity']): Promise<Diagnostic[]> {
  if (disabled.length === 0) return [];
  const file = claudeSettingsFile(ctx);
  const problem = await strictJsonProblem(file, ctx.memo);
  if (problem === undefined) return [];
  return [{
    code: 'SF_DRIFT_DISABLED_EXPOSED', severity, file, errorCode: 'SF_E_CONFIG',
    message: `${disabled.map((s) => s.skillId).join(', ')} ${disabled.length === 1 ? 'is' : 'are'} disabled in ${file}, but Claude Code reads that file as strict JSON and skips all of it (${problem}), so the "off" has no effect`,
    hint: `remove the comments and trailing commas from ${file} (Forge keeps them; Claude Code does not read past them)`,
  }];
}

/** Why Claude Code would skip `file` (not strict JSON), or undefined when it reads it (or it is absent); the read doctor already made (memoJsonConfig). */
async function strictJsonProblem(file: string, memo: HostContext['memo']): Promise<string | undefined> {
  let text: string | undefined;
  try {
    text = (await memoJsonConfig(file, memo)).snap.text;
  } catch {
    return undefined;
  }
  if (text === undefined || text.trim() === '') return undefined;
  try {
    JSON.parse(text.replace(/^\uFEFF/, ''));
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
