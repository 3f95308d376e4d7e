import { isEnabled } from '../../install/enablement.js';
import { releaseLabel } from '../../install/requests.js';
import type { InstallationRecord } from '../../library/types.js';
import type { SkitInstallation } from './types.js';

export interface EvidenceScopeFilter {
  /** keep installations of this project root, plus user-scope installations */
  projectRoot?: string;
  /** count a skill as enabled only when this agent sees it enabled (default: any target) */
  agent?: string;
}

/**
 * Maps canonical-library installation records to the installations FORGE:SKIT_EVIDENCE reports.
 * Pure. A skill is enabled when any target (or the named agent) sees it enabled; the release is
 * the version, or the source ref/commit, or the bundle hash prefix for local sources.
 */
export function installationsFromLibrary(records: readonly InstallationRecord[], filter: EvidenceScopeFilter = {}): SkitInstallation[] {
  return records
    .filter((r) => r.scope === 'user' || filter.projectRoot === undefined || r.projectRoot === filter.projectRoot)
    .filter((r) => filter.agent === undefined || r.targets.some((t) => t.agent === filter.agent))
    .map((r) => ({
      skitId: r.skitId,
      version: releaseLabel(r.release, r.bundleHash),
      bundleHash: r.bundleHash,
      skills: r.skills.map((s) => {
        const agents = filter.agent ? [filter.agent] : r.targets.map((t) => t.agent);
        return { id: s.id, contentHash: s.hash, enabled: agents.some((a) => isEnabled(r.enablement, s, a)) };
      }),
    }))
    .sort((a, b) => a.skitId.localeCompare(b.skitId));
}
