import { resolve } from 'node:path';
import type { AgentSkillLibraryResolution, AgentSkillSourceType } from '../../../schemas/generated/semconv.js';
import { isEnabled } from '../../install/enablement.js';
import type { InstallationRecord } from '../../library/types.js';
import { isWithin } from '../../skit/safe-path.js';
import { artifactVersion } from './release.js';

/**
 * Resolution of a skill a host reports (name, scope, maybe its directory) plus the session's
 * registered cwd to one entry of the canonical library: SKIT id, release, skill id and content
 * hash. Pure: the index is built from library records. Ambiguity is labelled, never guessed.
 */

export interface SkillIndexEntry {
  skitId: string;
  skillId: string;
  name: string;
  contentHash: string;
  bundleHash: string;
  release?: string;
  sourceType: AgentSkillSourceType;
  sourceRef?: string;
  /** the adapter id the skill was projected for, e.g. 'claude-code' */
  agent: string;
  scope: 'user' | 'project';
  projectRoot?: string;
  /** absolute path of the projected skill directory */
  path: string;
  /** whether the library has the skill enabled for `agent` (a disabled skill may stay projected) */
  enabled: boolean;
  /** from when the installation's record is known to hold this state (epoch ms) */
  since: number;
}

export interface SkillIndex {
  entries: readonly SkillIndexEntry[];
}

/** Where the host says the skill came from. */
export type HostSkillScope = 'user' | 'project' | 'other' | 'unknown';

export interface SkillQuery {
  /** adapter id of the host: 'claude-code' | 'codex' | 'opencode' */
  agent: string;
  /** skill name as the host reports it; undefined when the host redacted it */
  name?: string;
  /** the directory the host loaded the skill from, when it says */
  dir?: string;
  hostScope: HostSkillScope;
  /** the session's registered working directory */
  cwd?: string;
  /** when the host used the skill (epoch nanoseconds): the library is consulted as it was then */
  at?: string;
}

export interface SkillResolution {
  resolution: AgentSkillLibraryResolution;
  entry?: SkillIndexEntry;
  /** number of library entries that matched (for diagnostics) */
  candidates: number;
}

const SOURCE_TYPES: Readonly<Record<string, AgentSkillSourceType>> = {
  hub: 'forge', forge: 'forge', git: 'git', 'skill-url': 'url', url: 'url', archive: 'archive', 'local-dir': 'local', 'local-skill': 'local', local: 'local',
};

/**
 * Builds the index of every projected skill of every installation; `sinceOf` dates each record's
 * state (default: its updatedAt).
 */
export function buildSkillIndex(installations: readonly InstallationRecord[], sinceOf = (inst: InstallationRecord) => Date.parse(inst.updatedAt)): SkillIndex {
  const entries: SkillIndexEntry[] = [];
  for (const inst of installations) {
    const release = artifactVersion(inst.release);
    const since = sinceOf(inst);
    for (const target of inst.targets) {
      for (const projected of target.paths) {
        const skill = inst.skills.find((s) => s.id === projected.skillId);
        if (!skill) continue;
        entries.push({
          skitId: inst.skitId,
          skillId: skill.id,
          name: skill.name,
          contentHash: skill.hash,
          bundleHash: inst.bundleHash,
          ...(release ? { release } : {}),
          sourceType: SOURCE_TYPES[inst.source.kind] ?? 'unknown',
          ...((inst.release.version ?? inst.source.commit) ? { sourceRef: inst.release.version ?? inst.source.commit } : {}),
          agent: target.agent,
          scope: target.scope,
          ...(target.projectRoot ?? inst.projectRoot ? { projectRoot: target.projectRoot ?? inst.projectRoot } : {}),
          path: resolve(projected.path),
          enabled: isEnabled(inst.enablement, skill, target.agent),
          since,
        });
      }
    }
  }
  return { entries };
}

function unique(entries: SkillIndexEntry[]): SkillIndexEntry[] {
  const seen = new Map<string, SkillIndexEntry>();
  for (const e of entries) seen.set(`${e.skillId}\u0000${e.contentHash}\u0000${e.scope}\u0000${e.projectRoot ?? ''}`, e);
  return [...seen.values()];
}

const answer = (entries: SkillIndexEntry[], onOne: AgentSkillLibraryResolution): SkillResolution =>
  entries.length === 1 ? { resolution: onOne, entry: entries[0], candidates: 1 } : { resolution: entries.length === 0 ? 'not_installed' : 'ambiguous', candidates: entries.length };

/** Resolves a host-reported skill to a library entry (see SkillResolution). */
export function resolveSkill(index: SkillIndex, q: SkillQuery): SkillResolution {
  if (!q.name && !q.dir) return { resolution: 'name_redacted', candidates: 0 };
  if (q.hostScope === 'other') return { resolution: 'not_installed', candidates: 0 };
  if (q.dir) {
    // a reported directory is exact evidence: only the entry projected at that path qualifies
    const dir = resolve(q.dir);
    return answer(unique(index.entries.filter((e) => e.path === dir && (!q.name || e.name === q.name))), 'exact_path');
  }
  const named = index.entries.filter((e) => e.agent === q.agent && e.name === q.name);
  const cwd = q.cwd ? resolve(q.cwd) : undefined;
  const inProject = (e: SkillIndexEntry) => e.scope === 'project' && e.projectRoot !== undefined && cwd !== undefined && isWithin(cwd, resolve(e.projectRoot));
  if (q.hostScope === 'user') return answer(unique(named.filter((e) => e.scope === 'user')), 'name_and_scope');
  if (q.hostScope === 'project') {
    const projectScoped = unique(named.filter((e) => e.scope === 'project'));
    // without a registered cwd the project cannot be checked: any project candidate is a guess
    if (cwd === undefined) return projectScoped.length ? { resolution: 'ambiguous', candidates: projectScoped.length } : { resolution: 'not_installed', candidates: 0 };
    return answer(projectScoped.filter(inProject), 'name_and_scope');
  }
  const candidates = unique(named.filter((e) => e.scope === 'user' || inProject(e)));
  if (cwd === undefined && named.some((e) => e.scope === 'project')) return { resolution: 'ambiguous', candidates: candidates.length + 1 };
  return answer(candidates, 'name_and_scope');
}
