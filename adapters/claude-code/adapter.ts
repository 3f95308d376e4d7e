import { dirname, join } from 'node:path';
import type { HostAdapter, HostContext, ProjectionRequest } from '../../core/install/host-adapter.js';
import { detectHost } from '../config/detect.js';
import { diagnoseJsonEntries } from '../config/json-diagnose.js';
import { createNativeAdapter, type NativeConfigControl } from '../config/native-adapter.js';
import type { LinkOps } from '../shared/fs-ops.js';
import { claudeOverridesAbove, claudeSkipsForgeFile } from './layers.js';
import { claudeNameShadows } from './name-shadow.js';
import { claudeConfigDir, claudeSettingsFile, OFF, reconcileClaudeSettings } from './settings.js';

/** `.claude/skills` in the project; `<config dir>/skills` (honouring CLAUDE_CONFIG_DIR) for the user. */
export function claudeSkillRoot(ctx: HostContext): string {
  if (ctx.scope === 'project') return join(ctx.projectRoot ?? '.', '.claude', 'skills');
  return join(claudeConfigDir(ctx), 'skills');
}

const states = (req: ProjectionRequest) => req.skills.map((s) => ({ skillId: s.skillId, name: s.name, enabled: s.enabled }));
const disabledOf = (req: ProjectionRequest) => req.skills.filter((s) => !s.enabled).map((s) => ({ skillId: s.skillId, name: s.name }));

const control: NativeConfigControl = {
  file: claudeSettingsFile,
  async reconcile(file, ctx, previous, req, dests, adopt) {
    const adoptNames = new Set(req.skills.filter((s) => adopt.has(s.skillId)).map((s) => s.name));
    return reconcileClaudeSettings(file, ctx.backupDir, previous, states(req), (path) => adoptNames.has(path[1]), ctx.dryRun);
  },
  async diagnose(file, ctx, previous, req) {
    const entries = await diagnoseJsonEntries({
      file, host: 'Claude Code', previous, disabledValue: OFF, memo: ctx.memo,
      desired: states(req).map((s) => ({ skillId: s.skillId, skillName: s.name, path: ['skillOverrides', s.name], value: s.enabled ? undefined : OFF })),
    });
    // Forge's "off" holds only where no settings file Claude Code ranks higher says otherwise
    return [...entries, ...(await claudeSkipsForgeFile(ctx, disabledOf(req), 'error')), ...(await claudeOverridesAbove(ctx, disabledOf(req), 'error'))];
  },
};

/** The Claude Code adapter (native per-skill control: `skillOverrides`). */
export function createClaudeCodeAdapter(options: { link?: LinkOps } = {}): HostAdapter {
  const adapter = createNativeAdapter({
    id: 'claude-code',
    aliases: ['claude'],
    displayName: 'Claude Code',
    skillRoot: claudeSkillRoot,
    control,
    // a user installation's directory is <config dir>/skills
    placeVariable: { name: 'CLAUDE_CONFIG_DIR', recordedValue: (record) => (record.scope === 'user' ? dirname(record.skillRoot) : undefined) },
    link: options.link,
    nameShadows: claudeNameShadows,
    detect(ctx) {
      const dir = claudeConfigDir(ctx);
      const project = ctx.scope === 'project' && ctx.projectRoot ? join(ctx.projectRoot, '.claude') : undefined;
      const configs = [join(dir, 'settings.json'), ...(project ? [join(project, 'settings.json'), join(project, 'settings.local.json')] : [])];
      return detectHost('claude', [dir, ...(project ? [project] : [])], configs, ctx.env);
    },
  });
  return {
    ...adapter,
    // what an install or enable/disable warns about (core/install/change-warnings.ts): the change
    // is made (an administrator's or a project's file is not Forge's to refuse over), and said;
    // doctor gets the same findings as errors from `control.diagnose`, not from here
    async nameShadows(req, record, ctx) {
      const shadows = await adapter.nameShadows!(req, record, ctx);
      return [...shadows, ...(await claudeSkipsForgeFile(ctx, disabledOf(req), 'warning')), ...(await claudeOverridesAbove(ctx, disabledOf(req), 'warning'))];
    },
  };
}

