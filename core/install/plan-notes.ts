import { compareSemver, parseSemver } from '../skit/semver.js';
import type { InstallationRecord, ReleaseRef } from '../library/types.js';
import { caretOf, describeCaret, satisfiesCaret } from '../sources/caret.js';
import { describeSource, hubRange, sourceOrigin } from '../sources/origin.js';
import { isEnabled } from './enablement.js';
import type { HostMove } from './host-adapter.js';
import type { InstallInput } from './plan-install.js';
import type { PreparedRelease } from './plan-types.js';
import { releaseLabel } from './requests.js';
import { sameSkillRoot } from './targets.js';

/**
 * What an install or update says about the change it plans, beyond its steps: a source that moved
 * to another place, skills flipped by default_enabled, the caret range a hub install follows, new
 * major versions, downgrades, agents whose skill directory moved, and "up to date".
 */

/** The note of an installation whose source moved to another place: both places, and the skills that went. */
export function originNote(before: InstallationRecord | null, after: InstallationRecord): string | undefined {
  if (!before || sourceOrigin(before.source) === sourceOrigin(after.source)) return undefined;
  const gone = before.skills.filter((s) => !after.skills.some((k) => k.name === s.name)).map((s) => s.id);
  const removed = gone.length > 0 ? `removed ${gone.join(', ')}, which the new source does not have` : 'no skill was removed';
  return `${before.skitId}: its source changed from ${describeSource(before.source)} to ${describeSource(after.source)}; ${removed}`;
}

/**
 * Skills whose on/off state this change flips through the release's `default_enabled` (no choice
 * of the user's decides it): said, with the command that turns them back and keeps them so.
 */
export function defaultFlipNotes(before: InstallationRecord | null, after: InstallationRecord): string[] {
  if (!before) return [];
  const notes: string[] = [];
  const agents = after.targets.map((t) => t.agent).filter((a) => before.targets.some((t) => t.agent === a));
  for (const skill of after.skills) {
    const was = before.skills.find((s) => s.name === skill.name);
    if (!was || was.defaultEnabled === skill.defaultEnabled) continue;
    const flipped = agents.filter((a) => isEnabled(before.enablement, was, a) !== isEnabled(after.enablement, skill, a));
    if (flipped.length === 0) continue;
    const on = skill.defaultEnabled;
    const some = flipped.length < agents.length ? ` for ${flipped.join(', ')}` : '';
    notes.push(
      `${skill.id} is now ${on ? 'on' : 'off'} by default, so it was ${on ? 'enabled' : 'disabled'}${some}; ` +
        `\`sf skit ${on ? 'disable' : 'enable'} ${skill.id}${some ? ` --agent ${flipped.join(',')}` : ''}\` turns it ${on ? 'off' : 'on'} again and keeps it so`,
    );
  }
  return notes;
}

/** A hub installation whose caret range changed (`--version`, or `sf add skit` of another version): the range `update` follows now. */
export function rangeNotes(before: InstallationRecord | null, after: InstallationRecord): string[] {
  const [was, now] = [before && hubRange(before.source, before.release), hubRange(after.source, after.release)];
  if (!before || !now || was === now) return [];
  return [`${after.skitId} follows ${now} now (${describeCaret(now)}): \`sf skit update\` takes its newest release in that range`];
}

/** A move past the range the installation followed (a new major version, asked for with --version): said, with the way back. */
export function majorNote(before: InstallationRecord | null, after: InstallationRecord): string[] {
  const [from, to] = [before?.release.version, after.release.version];
  if (after.source.kind !== 'hub' || !from || !to || !parseSemver(from) || !parseSemver(to) || compareSemver(to, from) <= 0 || satisfiesCaret(to, caretOf(from))) return [];
  return [`${after.skitId}: ${from} -> ${to} is a new major version, which may change what its skills do; to go back: sf skit update ${after.skitId} --version ${from}`];
}

/** `sf skit update` found a newer release than its range allows: said, with the command that moves to it. */
export function newerNote(prepared: PreparedRelease, after: InstallationRecord): string[] {
  const range = hubRange(after.source, after.release);
  if (!prepared.newer || !range) return [];
  return [`${after.skitId}: ${prepared.newer} is available, a new major version beyond ${range} (which may change what its skills do), so \`sf skit update\` does not move to it; to take it: sf skit update ${after.skitId} --version ${prepared.newer} (or --version latest)`];
}

/** `v1.2` / `1.2.3` as numbers; undefined for a ref that is not version-like (a branch, a commit). */
const versionLike = (ref: string | undefined) => (ref && /^v?\d+(\.\d+)*$/.test(ref) ? ref.replace(/^v/, '').split('.').map(Number) : undefined);

function compareNumbers(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** Whether `to` is an older release than `from`: hub versions (semver), or git tags that look like versions (v1, v2.1). */
export function downgradeOf(from: ReleaseRef, to: ReleaseRef): { from: string; to: string } | undefined {
  if (from.version && to.version && parseSemver(from.version) && parseSemver(to.version)) {
    return compareSemver(to.version, from.version) < 0 ? { from: from.version, to: to.version } : undefined;
  }
  const [a, b] = [versionLike(from.ref), versionLike(to.ref)];
  return a && b && compareNumbers(b, a) < 0 ? { from: from.ref!, to: to.ref! } : undefined;
}

/** What a change with nothing to do says: update in its own words, with the release it stays at. */
export function upToDate(op: InstallInput['op'], before: InstallationRecord | null, after: InstallationRecord): string {
  if (!before) return `${after.skitId} has nothing to install`;
  if (op === 'install') return `${after.skitId} is already installed and up to date`;
  const range = hubRange(after.source, after.release);
  return `${after.skitId} is up to date (${releaseLabel(after.release, after.bundleHash)}${range ? `, range ${range}` : ''})`;
}

/** Which agents' installations moved to another skill directory or config file, so the move is not silent. */
export function moveNotes(before: InstallationRecord | null, after: InstallationRecord, moved: readonly HostMove[]): string[] {
  const notes: string[] = [];
  for (const t of after.targets) {
    const was = before?.targets.find((b) => b.agent === t.agent);
    if (was && !sameSkillRoot(was.skillRoot, t.skillRoot)) notes.push(`${after.skitId} (${t.agent}): moved from ${was.skillRoot} to ${t.skillRoot}, where the agent reads skills now`);
  }
  for (const m of moved.filter((m) => m.what === 'config file')) {
    notes.push(`${after.skitId} (${m.agent}): its switches moved from ${m.recorded} to ${m.current}, where ${m.host} keeps them now`);
  }
  return notes;
}
