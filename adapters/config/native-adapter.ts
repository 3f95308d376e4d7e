import type { Diagnostic } from '../../core/errors/index.js';
import type { HostAdapter, HostContext, HostDetection, HostMove, ProjectedPath, ProjectionRecord, ProjectionRequest } from '../../core/install/host-adapter.js';
import { assertLandsInHome, assertLandsInProject, landingPath } from '../../core/fs/contained.js';
import { sfPaths } from '../../core/library/paths.js';
import { diagnoseProjection } from '../shared/drift.js';
import { projectionModeFrom, type LinkOps } from '../shared/fs-ops.js';
import { cleanStaleStaging, projectSkillDirs } from '../shared/project.js';
import { removeProjectedPath } from '../shared/remove.js';
import { assertProjectThere } from '../shared/project-root.js';
import { checkDestinations } from './collisions.js';
import { isManagedConfigEdit, mergeEditsByFile, type ManagedConfigEdit } from './managed.js';

/** The per-skill config control of one host (Claude Code skillOverrides, Codex [[skills.config]], OpenCode permission.skill). */
export interface NativeConfigControl {
  /** the config file Forge edits for this context */
  file(ctx: HostContext): string;
  /**
   * Brings Forge's entries in `file` to `req` (an empty skill list removes them all). `dests` maps
   * skill id -> projected directory; `adopt` lists skill ids whose directory is already Forge's.
   * Must throw (SF_E_CONFLICT / SF_E_CONFIG) before writing when a disabled skill would stay on.
   */
  reconcile(file: string, ctx: HostContext, previous: ManagedConfigEdit | undefined, req: ProjectionRequest, dests: Map<string, string>, adopt: Set<string>): Promise<{ edit?: ManagedConfigEdit; diagnostics: Diagnostic[] }>;
  /** config drift and disabled skills the host would still offer, without writing */
  diagnose(file: string, ctx: HostContext, previous: ManagedConfigEdit | undefined, req: ProjectionRequest, dests: Map<string, string>): Promise<Diagnostic[]>;
}

export interface NativeHostSpec {
  id: string;
  aliases: readonly string[];
  displayName: string;
  skillRoot(ctx: HostContext): string;
  detect(ctx: HostContext): Promise<HostDetection>;
  control: NativeConfigControl;
  /**
   * The environment variable that moves this host's places (CLAUDE_CONFIG_DIR, CODEX_HOME, ...),
   * and its value that leads to `record`'s places, read back from the record (undefined when the
   * record does not tell, or the variable does not decide them for its scope).
   */
  placeVariable: { name: string; recordedValue(record: ProjectionRecord): string | undefined };
  /** see HostAdapter.nameShadows (same-name skills in other roots the host reads) */
  nameShadows?(req: ProjectionRequest, record: ProjectionRecord, ctx: HostContext): Promise<Diagnostic[]>;
  /** see HostAdapter.alsoReads */
  alsoReads?(ctx: HostContext): string[];
  link?: LinkOps;
}

/**
 * A HostAdapter for a host with native per-skill enablement: every skill of the release is
 * projected, disabled ones are switched off in the host's own config. Order keeps disabled skills
 * hidden at every instant: config restrictions are written before directories appear, and
 * directories are removed before Forge's config entries go.
 */
/** A request for no skills: reconciling a file with it takes every Forge entry of the record out. */
const EMPTY_REQUEST: ProjectionRequest = { skitId: '', release: '', bundleHash: '', skills: [] };

/** One directory or file, by name or through a symbolic link (a place not made yet: where it would be). */
const samePlace = (a: string, b: string) => a === b || landingPath(a) === landingPath(b);

export function createNativeAdapter(spec: NativeHostSpec): HostAdapter {
  const storeRoot = (ctx: HostContext) => sfPaths(ctx.env).store;
  const variable = spec.placeVariable.name;

  /**
   * The context `record` was made in: its places, whatever the environment says now. setEnablement
   * and diagnose work there, so the planners (which check the recorded places) and the adapter
   * agree, and a rollback restores what the record says.
   */
  const recordedCtx = (record: ProjectionRecord, ctx: HostContext): HostContext => {
    const value = spec.placeVariable.recordedValue(record);
    return value === undefined ? ctx : { ...ctx, env: { ...ctx.env, [variable]: value } };
  };

  /** The checks of `apply` and its config plan, written nowhere. `skillRoot`: the recorded one for setEnablement, else the context's. */
  const plan = async (req: ProjectionRequest, ctx: HostContext, previous?: ProjectionRecord, skillRoot = spec.skillRoot(ctx)) => {
    const file = spec.control.file(ctx);
    assertProjectThere(ctx, req.skitId);
    if (ctx.scope === 'project' && ctx.projectRoot) {
      assertLandsInProject(skillRoot, ctx.projectRoot, `the ${spec.displayName} skill directory`);
      assertLandsInProject(file, ctx.projectRoot, `the ${spec.displayName} config file`);
    }
    // a config file in the home directory (Codex's, whatever the scope) must not lead out of it
    assertLandsInHome(file, ctx.home, `the ${spec.displayName} config file`);
    const dests = await checkDestinations(req, skillRoot, storeRoot(ctx), previous);
    const destMap = new Map(dests.map((d) => [d.skillId, d.dest]));
    // without any record, an entry holding Forge's value for a skill Forge already shows is taken
    // as Forge's; with one, the record (and Forge's write notes) alone say which entries are
    // Forge's, so the user's own identical entry stays theirs
    const adopt = new Set(previous ? [] : dests.filter((d) => d.forge).map((d) => d.skillId));
    const prevEdits = mergeEditsByFile((previous?.configEdits ?? []).filter(isManagedConfigEdit));
    return { skillRoot, file, destMap, adopt, prevEdits };
  };

  const apply = async (req: ProjectionRequest, ctx: HostContext, previous?: ProjectionRecord, root?: string): Promise<ProjectionRecord> => {
    const { skillRoot, file, destMap, adopt, prevEdits } = await plan(req, ctx, previous, root);
    // skills the previous record had that this request no longer shows there: their directories go
    // first, so a disabled one is never left visible without its config entry
    for (const p of previous?.paths ?? []) if (destMap.get(p.skillId) !== p.path) await removeProjectedPath(p, storeRoot(ctx));
    const result = await spec.control.reconcile(file, ctx, prevEdits.find((e) => e.file === file), req, destMap, adopt);
    if (result.edit) ctx.onConfigEdit?.(result.edit);
    // entries left in a file this context no longer uses (e.g. the user created opencode.json since)
    for (const old of prevEdits.filter((e) => e.file !== file)) {
      await spec.control.reconcile(old.file, ctx, old, { ...req, skills: [] }, new Map(), new Set());
    }
    const mode = projectionModeFrom(ctx.env);
    const targets = req.skills.map((skill) => ({ skillId: skill.skillId, sourceDir: skill.sourceDir, dest: destMap.get(skill.skillId)! }));
    // what an interrupted projection left next to the root goes, as the generic adapter does (doctor's repair relies on it)
    await cleanStaleStaging(skillRoot);
    const modes = await projectSkillDirs(targets, { mode, link: spec.link });
    const paths: ProjectedPath[] = targets.map((t, i) => ({ skillId: t.skillId, path: t.dest, mode: modes[i] }));
    return {
      agent: spec.id,
      scope: ctx.scope,
      ...(ctx.scope === 'project' && ctx.projectRoot ? { projectRoot: ctx.projectRoot } : {}),
      skillRoot,
      paths,
      configEdits: result.edit ? [result.edit] : [],
    };
  };

  return {
    id: spec.id,
    aliases: spec.aliases,
    displayName: spec.displayName,
    ...(spec.nameShadows ? { nameShadows: spec.nameShadows } : {}),
    nativeEnablement: true,
    skillRoot: (ctx) => spec.skillRoot(ctx),
    detect: (ctx) => spec.detect(ctx),
    ...(spec.alsoReads ? { alsoReads: spec.alsoReads } : {}),
    async preflight(req, record, ctx) {
      const { file, destMap, adopt, prevEdits } = await plan(req, ctx, record);
      await spec.control.reconcile(file, { ...ctx, dryRun: true }, prevEdits.find((e) => e.file === file), req, destMap, adopt);
    },
    async preflightUnproject(record, ctx) {
      for (const edit of mergeEditsByFile(record.configEdits.filter(isManagedConfigEdit))) {
        await spec.control.reconcile(edit.file, { ...ctx, dryRun: true }, edit, EMPTY_REQUEST, new Map(), new Set());
      }
    },
    project: (req, ctx, previous) => apply(req, ctx, previous),
    setEnablement: (req, record, ctx) => apply(req, recordedCtx(record, ctx), record, record.skillRoot),

    moved(record, ctx): HostMove | undefined {
      const was = recordedCtx(record, ctx);
      const base = { agent: spec.id, host: spec.displayName, variable: { name: variable, now: ctx.env[variable] || undefined, recorded: spec.placeVariable.recordedValue(record) } };
      const root = spec.skillRoot(ctx);
      if (!samePlace(record.skillRoot, root)) return { ...base, what: 'skill directory', recorded: record.skillRoot, current: root };
      const [recorded, current] = [spec.control.file(was), spec.control.file(ctx)];
      if (!samePlace(recorded, current)) return { ...base, what: 'config file', recorded, current };
      return undefined;
    },

    async unproject(record, ctx) {
      for (const p of record.paths) await removeProjectedPath(p, storeRoot(ctx));
      for (const edit of mergeEditsByFile(record.configEdits.filter(isManagedConfigEdit))) await spec.control.reconcile(edit.file, ctx, edit, EMPTY_REQUEST, new Map(), new Set());
    },

    async diagnose(req, record, current) {
      // the installation where it is recorded; a host that reads elsewhere now is `moved`
      const ctx = recordedCtx(record, current);
      const out = await diagnoseProjection(req, record, { nativeEnablement: true, storeRoot: storeRoot(ctx) });
      const dests = new Map(req.skills.map((s) => [s.skillId, record.paths.find((p) => p.skillId === s.skillId)?.path ?? `${record.skillRoot}/${s.name}`]));
      const file = spec.control.file(ctx);
      const prev = record.configEdits.filter(isManagedConfigEdit).find((e) => e.file === file);
      out.push(...(await spec.control.diagnose(file, ctx, prev, req, dests)));
      if (spec.nameShadows) out.push(...(await spec.nameShadows(req, record, ctx)));
      return out;
    },
  };
}
