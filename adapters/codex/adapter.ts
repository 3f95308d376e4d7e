import { dirname, join } from 'node:path';
import { isSfError, type Diagnostic } from '../../core/errors/index.js';
import type { HostAdapter, HostContext, ProjectionRequest } from '../../core/install/host-adapter.js';
import { readConfig } from '../config/config-file.js';
import { detectHost } from '../config/detect.js';
import { CONFIG_DRIFT, DISABLED_EXPOSED, invalidConfig } from '../config/json-diagnose.js';
import { createNativeAdapter, type NativeConfigControl } from '../config/native-adapter.js';
import { findManagedBlocks } from '../config/toml-blocks.js';
import type { LinkOps } from '../shared/fs-ops.js';
import { reconcileCodexConfig, resolvePaths } from './reconcile-config.js';
import { HEADER, ownedBy, ownerOf, pathsToResolve, planCodexConfig, type CodexSkillState } from './skills-config.js';

/** $CODEX_HOME, else ~/.codex. */
export function codexHome(ctx: HostContext): string {
  return ctx.env.CODEX_HOME || join(ctx.home, '.codex');
}

/**
 * `.agents/skills` in the project (Codex scans it from the repo root down to the cwd) and
 * `~/.agents/skills` for the user (`$CODEX_HOME/skills` still loads but is deprecated upstream).
 */
export function codexSkillRoot(ctx: HostContext): string {
  if (ctx.scope === 'project') return join(ctx.projectRoot ?? '.', '.agents', 'skills');
  return join(ctx.home, '.agents', 'skills');
}

/** Codex honours `[[skills.config]]` only in the user layer, so both scopes edit $CODEX_HOME/config.toml. */
export const codexConfigFile = (ctx: HostContext): string => join(codexHome(ctx), 'config.toml');

function states(req: ProjectionRequest, dests: Map<string, string>): CodexSkillState[] {
  return req.skills.map((s) => ({ skillId: s.skillId, name: s.name, enabled: s.enabled, skillMdPath: join(dests.get(s.skillId) ?? s.name, 'SKILL.md') }));
}

const control: NativeConfigControl = {
  file: codexConfigFile,
  reconcile(file, ctx, previous, req, dests) {
    return reconcileCodexConfig({ file, backupDir: ctx.backupDir, previous, desired: states(req, dests), dryRun: ctx.dryRun, root: codexSkillRoot(ctx) });
  },
  async diagnose(file, ctx, previous, req, dests) {
    const snap = readConfig(file);
    const desired = states(req, dests);
    // this installation's own blocks only: the same SKIT installed elsewhere has its own (see CodexOwner)
    const owner = ownerOf(desired, previous?.managed ?? [], codexSkillRoot(ctx));
    let planned: string;
    let notes: Diagnostic[];
    try {
      ({ text: planned, diagnostics: notes } = planCodexConfig(snap.text, file, desired, snap.shape.eol, owner, {}, resolvePaths(pathsToResolve(snap.text, file, desired))));
    } catch (e) {
      if (isSfError(e, 'SF_E_CONFLICT')) return ((e.data?.diagnostics ?? []) as Diagnostic[]).map((d) => ({ ...d, code: DISABLED_EXPOSED }));
      return invalidConfig(file, e, 'Codex');
    }
    // the user's own entries that keep an enabled skill off, and Forge blocks someone edited
    if (planned === snap.text) return notes;
    const blocks = findManagedBlocks(snap.text).filter((b) => b.header === HEADER && ownedBy(b, owner));
    const out: Diagnostic[] = [...notes];
    for (const s of desired) {
      const block = blocks.find((b) => b.id === s.skillId);
      const ok = block && block.values.path === s.skillMdPath && block.values.enabled === false;
      if (!s.enabled && !ok) {
        const expected = `path = ${JSON.stringify(s.skillMdPath)}, enabled = false`;
        out.push({ code: DISABLED_EXPOSED, severity: 'error', file,
          message: block
            ? `${s.skillId} is disabled, but ${file} has a changed Forge [[skills.config]] entry (${entryValues(block.values)}; Forge expects ${expected})`
            : `${s.skillId} is disabled, but ${file} lacks the Forge [[skills.config]] entry (${expected})`,
          hint: 'run `sf skit doctor --fix` to restore it, or `sf skit enable` if you want the skill on' });
      } else if (s.enabled && block) {
        out.push({ code: CONFIG_DRIFT, severity: 'warning', file, message: `${s.skillId} is enabled, but a Forge [[skills.config]] entry still disables it in ${file}`, hint: 'run `sf skit doctor --fix` to remove it' });
      }
    }
    if (out.length === notes.length) out.push({ code: CONFIG_DRIFT, severity: 'warning', file, message: `Forge-managed [[skills.config]] blocks in ${file} differ from the installation (stale or duplicated)`, hint: 'run `sf skit doctor --fix`' });
    return out;
  },
};

/** What a Forge block in the file holds for the keys Forge writes, as TOML would show it (a key the user deleted is "missing"). */
function entryValues(values: Record<string, unknown>): string {
  const shown = (key: string) => (key in values ? JSON.stringify(values[key]) ?? String(values[key]) : 'missing');
  return `path = ${shown('path')}, enabled = ${shown('enabled')}`;
}

/** The Codex adapter (native per-skill control: path-selector `[[skills.config]]` entries). */
export function createCodexAdapter(options: { link?: LinkOps } = {}): HostAdapter {
  return createNativeAdapter({
    id: 'codex',
    aliases: [],
    displayName: 'Codex',
    skillRoot: codexSkillRoot,
    control,
    // the skill directory does not follow CODEX_HOME; the config.toml holding Forge's entries does
    placeVariable: { name: 'CODEX_HOME', recordedValue: (record) => (record.configEdits[0] ? dirname(record.configEdits[0].file) : undefined) },
    link: options.link,
    detect(ctx) {
      const home = codexHome(ctx);
      return detectHost('codex', [home], [join(home, 'config.toml')], ctx.env);
    },
  });
}
