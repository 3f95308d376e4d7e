import { relative } from 'node:path';
import { isEnabled } from '../../../core/install/enablement.js';
import { releaseLabel } from '../../../core/install/requests.js';
import { hubRange } from '../../../core/sources/origin.js';
import type { InstallationRecord } from '../../../core/library/types.js';
import { out, printTable } from '../../output/print.js';
import { dim, sanitize } from '../../output/style.js';

/** Human rendering of install-family results. */

export function whereOf(record: Pick<InstallationRecord, 'scope' | 'projectRoot'>): string {
  return record.scope === 'user' ? 'user' : `project ${record.projectRoot}`;
}

/** `installed acme/kit 1a2b3c4d5e6f (project /x)` + one row per skill and agent. */
export function printChange(action: string, record: InstallationRecord | null, notes: readonly string[]): void {
  for (const n of notes) out(dim(sanitize(n)));
  if (!record) return;
  out(`${action} ${sanitize(record.skitId)} ${releaseLabel(record.release, record.bundleHash)} (${whereOf(record)})`);
  const base = record.scope === 'project' && record.projectRoot ? record.projectRoot : undefined;
  const rows: string[][] = [];
  for (const skill of record.skills) {
    for (const t of record.targets) {
      const p = t.paths.find((x) => x.skillId === skill.id);
      const enabled = isEnabled(record.enablement, skill, t.agent);
      const shown = p ? (base ? relative(base, p.path) : p.path) : '-';
      rows.push([skill.id, t.agent, enabled ? 'enabled' : 'disabled', p ? `${shown} (${p.mode})` : shown]);
    }
  }
  if (rows.length > 0) printTable(['SKILL', 'AGENT', 'STATE', 'PATH'], rows);
}

/**
 * An installation record as every `--json` output shows it (`sf skit list`, and the `skit` of
 * install, enable, disable, update and remove): the record, with `release` left out when it names
 * nothing (a local directory), plus what the table shows: `releaseLabel`, `enabled` per skill
 * id and agent, and `range`, the caret range a hub install follows (also for a record written
 * before ranges were recorded, which follows `^<its version>`).
 */
export function recordJson(record: InstallationRecord): Record<string, unknown> {
  const { release, ...rest } = record;
  const ordered = Object.keys(release).length > 0 ? record : rest;
  const range = hubRange(record.source, record.release);
  return {
    ...ordered,
    releaseLabel: releaseLabel(record.release, record.bundleHash),
    enabled: Object.fromEntries(record.skills.map((s) => [s.id, Object.fromEntries(record.targets.map((t) => [t.agent, isEnabled(record.enablement, s, t.agent)]))])),
    ...(range !== undefined ? { range } : {}),
  };
}
