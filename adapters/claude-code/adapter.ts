import { join } from 'node:path';
import type { Diagnostic } from '../../core/errors/index.js';
import type { HostAdapter, HostContext, ProjectionRecord, ProjectionRequest } from '../../core/install/host-adapter.js';
import { bundleHex, sfPaths } from '../../core/library/paths.js';
import { detectHost } from '../config/detect.js';
import { diagnoseJsonEntries } from '../config/json-diagnose.js';
import { createNativeAdapter, type NativeConfigControl } from '../config/native-adapter.js';
import { isInsideDir, type LinkOps } from '../shared/fs-ops.js';
import { pathState } from '../shared/project.js';
import { claudeConfigDir, claudeSettingsFile, OFF, reconcileClaudeSettings } from './settings.js';

/** `.claude/skills` in the project; `<config dir>/skills` (honouring CLAUDE_CONFIG_DIR) for the user. */
export function claudeSkillRoot(ctx: HostContext): string {
  if (ctx.scope === 'project') return join(ctx.projectRoot ?? '.', '.claude', 'skills');
  return join(claudeConfigDir(ctx), 'skills');
}

const states = (req: ProjectionRequest) => req.skills.map((s) => ({ skillId: s.skillId, name: s.name, enabled: s.enabled }));

const control: NativeConfigControl = {
  file: claudeSettingsFile,
  async reconcile(file, ctx, previous, req, dests, adopt) {
    const adoptNames = new Set(req.skills.filter((s) => adopt.has(s.skillId)).map((s) => s.name));
    return reconcileClaudeSettings(file, ctx.backupDir, previous, states(req), (path) => adoptNames.has(path[1]), ctx.dryRun);
  },
  diagnose(file, _ctx, previous, req) {
    return diagnoseJsonEntries({
      file, host: 'Claude Code', previous, disabledValue: OFF,
      desired: states(req).map((s) => ({ skillId: s.skillId, skillName: s.name, path: ['skillOverrides', s.name], value: s.enabled ? undefined : OFF })),
    });
  },
};

/**
 * skillOverrides are keyed by name, so for a project install a same-named skill that is not
 * Forge's in the user's skill root is switched off together with Forge's disabled one (and may
 * shadow an enabled one): worth a warning.
 */
async function sameNameElsewhere(req: ProjectionRequest, record: ProjectionRecord, ctx: HostContext): Promise<Diagnostic[]> {
  if (ctx.scope !== 'project') return [];
  const out: Diagnostic[] = [];
  const store = sfPaths(ctx.env).store;
  for (const s of req.skills) {
    const other = join(claudeConfigDir(ctx), 'skills', s.name);
    const st = await pathState(other);
    if (st.kind === 'absent') continue;
    // another Forge installation (another SKIT or release in the user scope) shares the name too;
    // the same release installed in both scopes is the same skill
    const forge = st.kind === 'symlink' && isInsideDir(st.target, store);
    if (forge && isInsideDir(st.target, join(store, bundleHex(req.bundleHash)))) continue;
    out.push({ code: 'SF_ADAPTER_NAME_SHADOW', severity: 'warning', file: other,
      message: `Claude Code also sees a skill named "${s.name}" at ${other}${forge ? ', installed by Forge in the user scope' : ' that Forge does not manage'}; skillOverrides apply by name to both, so turning one off turns off the other`,
      hint: `Rename one of them if they are different skills (Forge's is ${s.skillId} in ${record.skillRoot}).` });
  }
  return out;
}

/** The Claude Code adapter (native per-skill control: `skillOverrides`). */
export function createClaudeCodeAdapter(options: { link?: LinkOps } = {}): HostAdapter {
  return createNativeAdapter({
    id: 'claude-code',
    aliases: ['claude'],
    displayName: 'Claude Code',
    skillRoot: claudeSkillRoot,
    control,
    link: options.link,
    nameShadows: sameNameElsewhere,
    detect(ctx) {
      const dir = claudeConfigDir(ctx);
      const project = ctx.scope === 'project' && ctx.projectRoot ? join(ctx.projectRoot, '.claude') : undefined;
      const configs = [join(dir, 'settings.json'), ...(project ? [join(project, 'settings.json'), join(project, 'settings.local.json')] : [])];
      return detectHost('claude', [dir, ...(project ? [project] : [])], configs, ctx.env);
    },
  });
}

