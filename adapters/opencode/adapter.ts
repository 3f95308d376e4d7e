import { dirname, join } from 'node:path';
import { isSfError, SfError, type Diagnostic } from '../../core/errors/index.js';
import type { HostAdapter, HostContext, ProjectionRecord, ProjectionRequest } from '../../core/install/host-adapter.js';
import { detectHost } from '../config/detect.js';
import { CONFIG_DRIFT, CONFIG_INVALID, DISABLED_EXPOSED, diagnoseJsonEntries, invalidConfig, memoJsonConfig } from '../config/json-diagnose.js';
import { isJsonObject, parseJsonConfig, type JsonObject } from '../config/json-edit.js';
import { createNativeAdapter, type NativeConfigControl } from '../config/native-adapter.js';
import type { LinkOps } from '../shared/fs-ops.js';
import { exposedDisabledSkills, mergeLayers, type ConfigLayer } from './effective-permission.js';
import { opencodeNameShadows, opencodeScanRoots } from './name-shadow.js';
import { DENY, opencodeConfigDir, opencodeConfigFile, opencodeConfigSources, reconcileOpenCodePermission } from './permission.js';

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

/**
 * The configs OpenCode merges for this context (opencodeConfigSources), read, in its order;
 * `file`, the one Forge edits, keeps its place (at the end if OpenCode would not load it). A file
 * or OPENCODE_CONFIG_CONTENT that does not parse is SF_E_CONFIG (OpenCode refuses to start), or
 * handed to `invalid` and left out. With `memo` (doctor), each file is read once per pass.
 */
async function readLayers(ctx: HostContext, file: string, invalid?: (file: string, e: unknown) => void, memo?: HostContext['memo']): Promise<{ layers: ConfigLayer[]; at: number }> {
  const sources = opencodeConfigSources(ctx);
  if (!sources.some((s) => 'file' in s && s.file === file)) sources.push({ file });
  const layers: ConfigLayer[] = [];
  let at = -1;
  for (const s of sources) {
    if ('variable' in s) {
      const layer = variableLayer(s.variable, s.text, invalid);
      if (layer) layers.push(layer);
      continue;
    }
    const f = s.file;
    if (f === file) {
      at = layers.length;
      layers.push({ file, doc: {} });
      continue;
    }
    try {
      const { snap, doc, error } = await memoJsonConfig(f, memo);
      if (!doc) throw error;
      if (snap.exists) layers.push({ file: f, doc });
    } catch (e) {
      if (!invalid) throw e;
      invalid(f, e);
    }
  }
  return { layers, at };
}

/**
 * A config held in an environment variable, named `$VAR` where findings say where a rule is.
 * OPENCODE_PERMISSION is JSON merged into `permission`; OpenCode skips it with a warning when it
 * does not parse, and an array or string merged there adds no rule about skills.
 */
function variableLayer(variable: 'OPENCODE_CONFIG_CONTENT' | 'OPENCODE_PERMISSION', text: string, invalid?: (file: string, e: unknown) => void): ConfigLayer | undefined {
  const name = `$${variable}`;
  if (variable === 'OPENCODE_PERMISSION') {
    try {
      const permission: unknown = JSON.parse(text);
      return isJsonObject(permission) ? { file: name, doc: { permission } } : undefined;
    } catch {
      return undefined;
    }
  }
  try {
    return { file: name, doc: parseJsonConfig(text, name) };
  } catch (e) {
    if (!isSfError(e, 'SF_E_CONFIG')) throw e;
    // parseJsonConfig speaks of a file Forge would edit; this is the user's environment
    const why = e.message.slice(name.length).replace(/^:\s*/, '').replace(/; Forge will not edit.*$/, '');
    const err = new SfError('SF_E_CONFIG', `${name} does not parse (${why}), and OpenCode will not start with it`, {
      location: { file: name, line: e.location?.line, column: e.location?.column },
      hint: 'Fix or unset OPENCODE_CONFIG_CONTENT in this environment and run the command again; nothing was changed.',
    });
    if (!invalid) throw err;
    invalid(name, err);
    return undefined;
  }
}

/** Checks a planned or current `file`: merged with every other file OpenCode loads, each disabled skill must evaluate to "deny" for every agent. */
async function validator(req: ProjectionRequest, ctx: HostContext, file: string, invalid?: (file: string, e: unknown) => void, memo?: HostContext['memo']): Promise<(doc: JsonObject) => Diagnostic[]> {
  const disabled = disabledOf(req);
  // nothing disabled (a remove, or every skill on): nothing to check, and other files need not parse
  if (disabled.length === 0) return () => [];
  const { layers, at } = await readLayers(ctx, file, invalid, memo);
  return (doc) => exposedDisabledSkills(mergeLayers(layers.map((l, i) => (i === at ? { file, doc } : l))), disabled, file);
}

const control: NativeConfigControl = {
  file: opencodeConfigFile,
  // same-named skills of the user's are HostAdapter.nameShadows' (a change's warnings and doctor
  // call it): scanning every root OpenCode reads here too cost each change two more scans
  async reconcile(file, ctx, previous, req, _dests, adopt) {
    const adoptNames = new Set(req.skills.filter((s) => adopt.has(s.skillId)).map((s) => s.name));
    // no memo: what this reconcile checks must be what it writes over
    const validate = await validator(req, ctx, file);
    return reconcileOpenCodePermission(file, ctx.backupDir, previous, req.skills, { adopt: (p) => adoptNames.has(p[2]), validate, dryRun: ctx.dryRun });
  },
  async diagnose(file, ctx, previous, req) {
    const desired = req.skills.map((s) => ({ skillId: s.skillId, skillName: s.name, path: ['permission', 'skill', s.name], value: s.enabled ? undefined : DENY }));
    const entries = await diagnoseJsonEntries({ file, host: 'OpenCode', previous, disabledValue: DENY, desired, memo: ctx.memo });
    if (entries.some((d) => d.code === CONFIG_INVALID)) return entries;
    const invalid: Diagnostic[] = [];
    const effective = await validator(req, ctx, file, (f, e) => invalid.push(...invalidConfig(f, e, 'OpenCode')), ctx.memo);
    // it parsed: diagnoseJsonEntries said nothing is invalid
    const exposedHere = effective((await memoJsonConfig(file, ctx.memo)).doc!);
    // what OpenCode does is decided by the merged rules of all its files: Forge's entry missing
    // from this file exposes nothing while another file's deny still holds (e.g. the entry is in
    // opencode.json, and an opencode.jsonc appeared since, which Forge would now edit)
    const out: Diagnostic[] = [...invalid, ...entries.filter((d) => d.code !== DISABLED_EXPOSED)];
    for (const s of disabledOf(req)) {
      const about = (d: Diagnostic) => d.message.startsWith(`${s.skillId} `);
      const here = entries.filter((d) => d.code === DISABLED_EXPOSED && about(d));
      const exposed = exposedHere.filter(about);
      if (exposed.length > 0) {
        // the entry findings say how to repair Forge's own entry; otherwise the deciding rule and its file
        out.push(...(here.length > 0 ? here : exposed));
      } else if (here.length > 0 && previous?.managed.some((m) => m.skillId === s.skillId)) {
        out.push({ code: CONFIG_DRIFT, severity: 'warning', file,
          message: `${s.skillId} is disabled and OpenCode still denies "${s.name}", but Forge's "permission.skill.${s.name}" entry in ${file} is missing or changed`,
          hint: 'run `sf skit doctor --fix` to restore it' });
      }
    }
    // one finding per skill, code and file
    const seen = new Set<string>();
    return out.filter((d) => {
      const k = `${d.code}|${d.file}|${d.message.split(' ')[0]}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  },
};

/** The same-named skills of the user's that Forge's name-based deny would also turn off. */
async function nameShadows(req: ProjectionRequest, record: ProjectionRecord, ctx: HostContext): Promise<Diagnostic[]> {
  return opencodeNameShadows(req, ctx, record.skillRoot, [...record.paths.map((p) => p.path), ...req.skills.map((s) => join(record.skillRoot, s.name))]);
}

/** The OpenCode adapter (native per-skill control: `permission.skill`). */
export function createOpenCodeAdapter(options: { link?: LinkOps } = {}): HostAdapter {
  return createNativeAdapter({
    id: 'opencode',
    aliases: [],
    displayName: 'OpenCode',
    skillRoot: opencodeSkillRoot,
    control,
    // a user installation's directory is $XDG_CONFIG_HOME/opencode/skills
    placeVariable: { name: 'XDG_CONFIG_HOME', recordedValue: (record) => (record.scope === 'user' ? dirname(dirname(record.skillRoot)) : undefined) },
    link: options.link,
    nameShadows: nameShadows,
    alsoReads: opencodeScanRoots,
    detect(ctx) {
      const dir = opencodeConfigDir(ctx);
      const root = ctx.scope === 'project' && ctx.projectRoot ? ctx.projectRoot : undefined;
      const configs = [join(dir, 'opencode.jsonc'), join(dir, 'opencode.json'), join(dir, 'config.json'),
        ...(root ? ['opencode.json', 'opencode.jsonc', '.opencode/opencode.json', '.opencode/opencode.jsonc'].map((f) => join(root, f)) : [])];
      return detectHost('opencode', [dir, ...(root ? [join(root, '.opencode')] : [])], configs, ctx.env);
    },
  });
}
