import { join } from 'node:path';
import type { Diagnostic } from '../../core/errors/index.js';
import type { HostAdapter, HostContext, ProjectionRequest } from '../../core/install/host-adapter.js';
import { readConfig } from '../config/config-file.js';
import { detectHost } from '../config/detect.js';
import { diagnoseJsonEntries } from '../config/json-diagnose.js';
import { parseJsonConfig, type JsonObject } from '../config/json-edit.js';
import { createNativeAdapter, type NativeConfigControl } from '../config/native-adapter.js';
import type { LinkOps } from '../shared/fs-ops.js';
import { exposedDisabledSkills, mergeConfigs } from './effective-permission.js';
import { DENY, opencodeConfigDir, opencodeConfigFile, reconcileOpenCodePermission } from './permission.js';

/**
 * `.opencode/skills` in the project, `<config dir>/skills` for the user: directories only OpenCode
 * reads. OpenCode also scans `.claude/skills` and `.agents/skills`, so a skill Forge projects for
 * Claude Code or Codex as well is found twice; OpenCode keys skills by name, so the model still
 * sees it once (both copies link to the same store entry), and OpenCode's `permission.skill`
 * decides for every copy. Sharing `.claude/skills` instead would tie one
 * agent's removal to the other's directories.
 */
export function opencodeSkillRoot(ctx: HostContext): string {
  if (ctx.scope === 'project') return join(ctx.projectRoot ?? '.', '.opencode', 'skills');
  return join(opencodeConfigDir(ctx), 'skills');
}

const disabledOf = (req: ProjectionRequest) => req.skills.filter((s) => !s.enabled).map((s) => ({ skillId: s.skillId, name: s.name }));

/** The user's global OpenCode config documents (read-only), layered under a project config. */
async function globalDocs(ctx: HostContext, except: string): Promise<JsonObject[]> {
  if (ctx.scope !== 'project') return [];
  const docs: JsonObject[] = [];
  for (const name of ['config.json', 'opencode.json', 'opencode.jsonc']) {
    const file = join(opencodeConfigDir(ctx), name);
    if (file === except) continue;
    const snap = readConfig(file);
    if (snap.exists) docs.push(parseJsonConfig(snap.text, file));
  }
  return docs;
}

/** Checks a planned or current config: every disabled skill must evaluate to "deny" for every agent. */
function validator(req: ProjectionRequest, file: string, globals: JsonObject[]) {
  return (doc: JsonObject): Diagnostic[] => exposedDisabledSkills(mergeConfigs([...globals, doc]), disabledOf(req), file);
}

const control: NativeConfigControl = {
  file: opencodeConfigFile,
  async reconcile(file, ctx, previous, req, _dests, adopt) {
    const adoptNames = new Set(req.skills.filter((s) => adopt.has(s.skillId)).map((s) => s.name));
    const validate = validator(req, file, await globalDocs(ctx, file));
    return reconcileOpenCodePermission(file, ctx.backupDir, previous, req.skills, { adopt: (p) => adoptNames.has(p[2]), validate, dryRun: ctx.dryRun });
  },
  async diagnose(file, ctx, previous, req) {
    const validate = validator(req, file, await globalDocs(ctx, file));
    const found = await diagnoseJsonEntries({
      file, host: 'OpenCode', previous, disabledValue: DENY, validate,
      desired: req.skills.map((s) => ({ skillId: s.skillId, skillName: s.name, path: ['permission', 'skill', s.name], value: s.enabled ? undefined : DENY })),
    });
    // one finding per skill and file is enough: the rule check repeats what the entry check found
    const seen = new Set<string>();
    return found.filter((d) => {
      const k = `${d.code}|${d.message.split(' ')[0]}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  },
};

/** The OpenCode adapter (native per-skill control: `permission.skill`). */
export function createOpenCodeAdapter(options: { link?: LinkOps } = {}): HostAdapter {
  return createNativeAdapter({
    id: 'opencode',
    aliases: [],
    displayName: 'OpenCode',
    skillRoot: opencodeSkillRoot,
    control,
    link: options.link,
    detect(ctx) {
      const dir = opencodeConfigDir(ctx);
      const root = ctx.scope === 'project' && ctx.projectRoot ? ctx.projectRoot : undefined;
      const configs = [join(dir, 'opencode.jsonc'), join(dir, 'opencode.json'), join(dir, 'config.json'),
        ...(root ? ['opencode.json', 'opencode.jsonc', '.opencode/opencode.json', '.opencode/opencode.jsonc'].map((f) => join(root, f)) : [])];
      return detectHost('opencode', [dir, ...(root ? [join(root, '.opencode')] : [])], configs, ctx.env);
    },
  });
}
