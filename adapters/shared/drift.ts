import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Diagnostic } from '../../core/errors/index.js';
import { hasErrno } from '../../core/errors/index.js';
import type { ProjectionRecord, ProjectionRequest } from '../../core/install/host-adapter.js';
import { changedPaths } from '../../core/library/tree-diff.js';
import { isInsideDir, stagingDirFor } from './fs-ops.js';
import { pathState } from './project.js';
import { diffAgainstSource } from './same-tree.js';

/**
 * Drift codes every adapter reports through `diagnose` (docs: `sf skit doctor`). Diagnostic.file
 * is the absolute path concerned.
 */
export const DRIFT = {
  missing: 'SF_DRIFT_MISSING',
  dangling: 'SF_DRIFT_DANGLING_LINK',
  wrongLink: 'SF_DRIFT_WRONG_LINK',
  modified: 'SF_DRIFT_MODIFIED',
  foreign: 'SF_DRIFT_FOREIGN',
  disabledExposed: 'SF_DRIFT_DISABLED_EXPOSED',
  leftover: 'SF_DRIFT_STAGING_LEFTOVER',
} as const;

const d = (code: string, file: string, message: string, hint: string, severity: Diagnostic['severity'] = 'error'): Diagnostic => ({ code, severity, file, message, hint });

export interface DriftOptions {
  /** the host turns disabled skills off natively, so they stay projected */
  nativeEnablement: boolean;
  /** $SF_HOME/store: links into it are Forge's */
  storeRoot: string;
}

/**
 * Compares a target's skill root with what `record` says Forge put there for `req`: missing
 * entries, dangling links, links to the wrong store entry, modified copies, foreign entries in
 * Forge's place, disabled skills still exposed to a host without native enablement, and staging
 * leftovers of an interrupted projection.
 */
export async function diagnoseProjection(req: ProjectionRequest, record: ProjectionRecord, options: DriftOptions): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  const fix = 'run `sf skit doctor --fix`';
  for (const skill of req.skills) {
    const recorded = record.paths.find((p) => p.skillId === skill.skillId);
    const path = recorded?.path ?? join(record.skillRoot, skill.name);
    const shouldExist = options.nativeEnablement || skill.enabled;
    const state = await pathState(path);
    if (!shouldExist) {
      if (state.kind === 'symlink' && isInsideDir(absTarget(path, state.target), options.storeRoot)) {
        out.push(d(DRIFT.disabledExposed, path, `${skill.skillId} is disabled but still projected for ${record.agent}`, fix));
      } else if (recorded && state.kind === 'dir') {
        out.push(d(DRIFT.disabledExposed, path, `${skill.skillId} is disabled but its copy is still in ${record.skillRoot}`, fix));
      }
      continue;
    }
    if (state.kind === 'absent') {
      out.push(d(DRIFT.missing, path, `${skill.skillId} is missing from ${record.skillRoot}`, fix));
      continue;
    }
    const mode = recorded?.mode ?? 'symlink';
    if (state.kind === 'symlink') {
      const target = absTarget(path, state.target);
      // a link out of the store is the user's whether or not its target is there (an unmounted disk, a clone to come)
      if (!isInsideDir(target, options.storeRoot)) out.push(d(DRIFT.foreign, path, `${path} now links outside the Forge store (${target}); it is not Forge's any more`, yours(req.skitId, skill.name)));
      else if (!exists(target)) out.push(d(DRIFT.dangling, path, `the link for ${skill.skillId} points to ${target}, which does not exist`, fix));
      else if (target !== skill.sourceDir) out.push(d(DRIFT.wrongLink, path, `the link for ${skill.skillId} points to ${target} instead of ${skill.sourceDir}`, fix));
      continue;
    }
    if (state.kind === 'dir' && mode === 'copy') {
      const diff = await diffAgainstSource(path, skill.sourceDir);
      const changed = changedPaths(diff);
      if (changed.length > 0) {
        out.push(d(DRIFT.modified, path, `${skill.skillId} was modified locally: ${changed.join(', ')}`, 'keep your edits by copying them elsewhere, or run `sf skit doctor --fix --force` to restore the release'));
      }
      continue;
    }
    out.push(d(DRIFT.foreign, path, `${path} is not what Forge installed for ${skill.skillId} (a ${state.kind === 'dir' ? 'directory' : 'file'} replaced the ${mode})`, yours(req.skitId, skill.name)));
  }
  out.push(...leftovers(record.skillRoot));
  return out;
}

/** The hint for an entry the user put in Forge's place: it is theirs, and stays unless they move it. */
function yours(skitId: string, skill: string): string {
  return `Forge never replaces it, not even with --fix --force: to get Forge's ${skill} back, move or rename it, then run \`sf skit doctor --fix\`; to keep yours, \`sf skit remove ${skitId}\` leaves it in place`;
}

function absTarget(path: string, target: string): string {
  return isAbsolute(target) ? target : resolve(dirname(path), target);
}

/**
 * Synchronous, like pathState: doctor checks thousands of links, and through the thread pool each
 * stat cost a round trip many times the kernel's few microseconds.
 */
function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR') || hasErrno(e, 'ELOOP')) return false;
    throw e;
  }
}

/** Staging entries left by an interrupted projection next to `skillRoot`. */
function leftovers(skillRoot: string): Diagnostic[] {
  const staging = stagingDirFor(skillRoot);
  try {
    // synchronous for the reason exists is; one per installation and host, and usually not there
    if (!existsSync(staging)) return [];
    const names = readdirSync(staging);
    if (names.length === 0) return [];
    return [d(DRIFT.leftover, staging, `an interrupted projection left ${names.length} staging entr${names.length === 1 ? 'y' : 'ies'} in ${staging}`, 'run `sf skit doctor --fix`', 'warning')];
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return [];
    throw e;
  }
}
