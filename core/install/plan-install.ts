import { isDeepStrictEqual } from 'node:util';
import { SfError } from '../errors/index.js';
import { isValidSkitId } from '../skit/skit-id.js';
import { recordScopeKey, scopeKey as makeScopeKey, type InstallationRecord, type SourceRecord } from '../library/types.js';
import { describeSource, hubRange, sourceOrigin } from '../sources/origin.js';
import { pruneOverrides } from './enablement.js';
import type { PreparedAudit, ReleaseAudit } from './audit.js';
import { inventoryEvent } from './events.js';
import type { HostMove, ProjectedPath, ProjectionRequest, Scope } from './host-adapter.js';
import { findInScope } from './find-installation.js';
import { PathOwners, assertNoCollisions, assertNotReplaced, assertSharedRootsAgree, assertUnmodified, stillUsed, withoutReplaced } from './plan-checks.js';
import type { EditedPath, Observations, Plan, PlanEnv, PlanState, PreparedRelease, Step, TargetSpec } from './plan-types.js';
import { expectedPaths, predictedRecord, releaseLabel, requestFor, specOf } from './requests.js';
import { defaultFlipNotes, downgradeOf, majorNote, moveNotes, newerNote, originNote, rangeNotes, upToDate } from './plan-notes.js';

export interface InstallInput {
  op: 'install' | 'update';
  prepared: PreparedRelease;
  scope: Scope;
  projectRoot?: string;
  /** requested targets; the installation's other targets are kept as recorded (an update passes every agent, at its current root) */
  targets: TargetSpec[];
  /** agents whose adapters have native enablement (for targets already recorded) */
  nativeAgents: readonly string[];
  force: boolean;
  /** an extra id to record for this installation */
  alias?: string;
  /** update: the installation being updated (id as recorded), instead of looking it up by the release's id */
  replaces?: string;
  /** targets whose hosts now read elsewhere than recorded (targetsNow), projected again even when up to date, so they move (and said so) */
  moved?: readonly HostMove[];
  /** update --source: the installation (`replaces`) moves to another source on purpose, so its origin may change (said in a note) */
  repoint?: boolean;
  /**
   * Leave an edited copy of a skill the new release does not change as it is, instead of refusing
   * to overwrite it. False where the adapters would make links instead (SF_PROJECTION_MODE=symlink).
   */
  keepEditedCopies?: boolean;
}

/** The installation `prepared` replaces: same id, an alias of it, or a provisional install of the same source. */
export function existingFor(state: Pick<PlanState, 'installations'>, key: string, prepared: PreparedRelease, replaces?: string, repoint = false): InstallationRecord | null {
  if (replaces) {
    const pinned = findInScope(state.installations, key, replaces);
    if (!pinned) throw new SfError('SF_E_NOT_INSTALLED', `${replaces} is not installed here`, { hint: 'see `sf skit list`' });
    if (!pinned.provisional && pinned.skitId !== prepared.skitId && !pinned.aliases.includes(prepared.skitId)) {
      if (repoint) {
        throw new SfError('SF_E_CONFLICT', `${prepared.source.canonical} holds ${prepared.skitId}, not ${pinned.skitId}`, {
          hint: `--source moves ${pinned.skitId} to another source of the same SKIT; to install ${prepared.skitId} beside it: sf add skit ${prepared.source.canonical}`,
        });
      }
      throw new SfError('SF_E_CONFLICT', `the source of ${pinned.skitId} now holds a different SKIT (${prepared.skitId})`, {
        hint: `install it separately with \`sf add skit ${pinned.source.canonical}\` after removing ${pinned.skitId}, or keep the current release`,
      });
    }
    return pinned;
  }
  const byId = findInScope(state.installations, key, prepared.skitId);
  const found = byId ?? state.installations.find((i) => i.provisional && i.source.fingerprint === prepared.source.fingerprint && recordScopeKey(i) === key) ?? null;
  refuseQueryTwin(found, prepared);
  return found;
}

/**
 * A URL's query is not part of its provisional identity (ARCHITECTURE.md), so `/get?f=a.tgz` and
 * `/get?f=b.tgz` share an id. Installing the second must not silently replace the first.
 */
function refuseQueryTwin(found: InstallationRecord | null, prepared: PreparedRelease): void {
  if (!found?.provisional) return;
  const [was, now] = [found.source.canonical, prepared.source.canonical];
  if (was === now || !(was.includes('?') || now.includes('?')) || was.replace(/\?.*$/, '') !== now.replace(/\?.*$/, '')) return;
  throw new SfError('SF_E_CONFLICT', `${now} has the provisional id of ${was} (${found.skitId}), which is installed here; a URL's query is not part of its identity`, {
    hint: `to replace it, \`sf skit remove ${found.skitId}\` first; to keep both, install one of them in the other scope (--scope)`,
  });
}

function aliasesFor(state: PlanState, key: string, before: InstallationRecord | null, input: InstallInput, notes: string[]): string[] {
  const aliases = [...(before?.aliases ?? [])];
  const add = (alias: string, why: string) => {
    if (alias === (before?.skitId ?? input.prepared.skitId) || aliases.includes(alias)) return;
    const other = findInScope(state.installations, key, alias);
    if (other && other !== before) {
      throw new SfError('SF_E_CONFLICT', `cannot use "${alias}" as an alias: ${other.skitId} already answers to it here`, { hint: 'choose another alias' });
    }
    aliases.push(alias);
    notes.push(why);
  };
  if (before && before.skitId !== input.prepared.skitId) {
    add(input.prepared.skitId, `${before.skitId} now also answers to ${input.prepared.skitId} (recorded as an alias; the id is kept)`);
  }
  if (input.alias !== undefined) {
    // an alias resolves like an id in later commands and is stored in the library: only an id will do
    if (!isValidSkitId(input.alias)) {
      throw new SfError('SF_E_USAGE', `--alias ${JSON.stringify(input.alias.length > 80 ? `${input.alias.slice(0, 80)}...` : input.alias)} is not a SKIT id (owner/name)`, {
        hint: 'an alias is another id this installation answers to: owner/name in lowercase letters, digits and hyphens, e.g. --alias acme/review-kit',
      });
    }
    add(input.alias, `recorded alias ${input.alias}`);
  }
  return aliases;
}

/**
 * The overrides an update keeps: those of skills the new release still has. A single-skill SKIT
 * whose one skill was renamed keeps its setting under the new name (the skill is the SKIT); any
 * other override that goes with its skill is named in a note, so a disabled skill does not come
 * back enabled under another name without a word.
 */
function carriedOverrides(before: InstallationRecord | null, prepared: PreparedRelease, notes: string[]): InstallationRecord['enablement'] {
  const overrides = before?.enablement ?? {};
  const kept = pruneOverrides(overrides, prepared.skills);
  const dropped = Object.keys(overrides).filter((name) => !(name in kept));
  if (before && dropped.length === 1 && before.skills.length === 1 && prepared.skills.length === 1) {
    const renamed = prepared.skills[0].name;
    notes.push(`${before.skitId}: its skill ${dropped[0]} is now called ${renamed}; its enable/disable setting went with it`);
    return { [renamed]: overrides[dropped[0]] };
  }
  for (const name of dropped) {
    notes.push(`${before!.skitId}:${name} is not in the new release; its enable/disable setting was dropped (check the new skills with \`sf skit list\`)`);
  }
  return kept;
}

/**
 * `sf add skit` of a source whose README claims the id of an installation that came from another
 * place (another repository, directory or hub, or a hub release replaced by a path): an id is
 * self-declared, so handing the installation and its later updates to another publisher must be
 * asked for (--force, or `sf skit update ID --source`, which keeps the user's settings).
 */
function assertSameOrigin(before: InstallationRecord | null, input: InstallInput): void {
  const { prepared } = input;
  if (!before || input.op !== 'install' || input.force || sourceOrigin(before.source) === sourceOrigin(prepared.source)) return;
  throw new SfError('SF_E_CONFLICT', `${describeSource(prepared.source)} says it is ${prepared.skitId}, which is installed here from another source, ${describeSource(before.source)}`, {
    hint: `to move ${before.skitId} to the new source, keeping its enable/disable settings: sf skit update ${before.skitId} --source ${prepared.source.canonical}; to replace it anyway, add --force; to keep both, install one of them in the other scope (--scope)`,
  });
}

/**
 * The source to record. A hub record written before ranges has none and follows `^<its
 * version>`: the same range resolved again is no change to it (an update with nothing to do
 * stays "unchanged"), so it is written only with the next release.
 */
function recordedSource(before: InstallationRecord | null, source: SourceRecord): SourceRecord {
  if (!before || before.source.range !== undefined || source.range === undefined || source.range !== hubRange(before.source, before.release)) return source;
  return isDeepStrictEqual(withoutRange(source), before.source) ? before.source : source;
}

function withoutRange(source: SourceRecord): Omit<SourceRecord, 'range'> {
  const { range: _range, ...rest } = source;
  return rest;
}

/**
 * Recorded copies of skills the new release does not change (same content hash) that the user
 * edited: left in place, so an update does not refuse over them, nor overwrite them with the same
 * release content.
 */
function keptCopies(prior: InstallationRecord['targets'][number], wanted: ReadonlySet<string>, before: InstallationRecord, after: InstallationRecord, observations: Observations): ProjectedPath[] {
  return prior.paths.filter((p) => {
    const seen = observations.paths[p.path];
    if (p.mode !== 'copy' || seen?.kind !== 'dir' || !seen.localChanges?.length || !wanted.has(p.path)) return false;
    const was = before.skills.find((s) => s.id === p.skillId);
    return was !== undefined && after.skills.some((s) => s.name === was.name && s.hash === was.hash);
  });
}

/**
 * The request with the kept copies projected "from themselves": the adapters leave an entry that
 * already shows its source alone (projection is idempotent), so the edited directory stays as it
 * is while the rest of the target, and the host's switches, follow the new release.
 */
function keepInPlace(request: ProjectionRequest, kept: readonly ProjectedPath[]): ProjectionRequest {
  const at = new Map(kept.map((p) => [p.skillId, p.path]));
  return { ...request, skills: request.skills.map((s) => (at.has(s.skillId) ? { ...s, sourceDir: at.get(s.skillId)! } : s)) };
}

/**
 * Plans installing `input.prepared` (or updating an existing installation to it): store the
 * release, project it to every target, record it. Pure. Throws SF_E_NAME_COLLISION when a skill
 * directory would replace something Forge does not own (also where the user's own entry replaced
 * one of Forge's; --force does not change that), SF_E_MODIFIED when Forge-installed files that
 * would be replaced were edited (unless forced), SF_E_CONFLICT when agents sharing a skill root
 * would need different skills.
 */
export function planInstall(state: PlanState, input: InstallInput, env: PlanEnv): Plan {
  const { prepared } = input;
  const key = makeScopeKey(input.scope, input.projectRoot);
  const before = existingFor(state, key, prepared, input.replaces, input.repoint);
  assertSameOrigin(before, input);
  const notes: string[] = [];
  const aliases = aliasesFor(state, key, before, input, notes);

  const targets = new Map<string, TargetSpec>();
  for (const t of before?.targets ?? []) targets.set(t.agent, specOf(t, input.nativeAgents.includes(t.agent)));
  for (const t of input.targets) targets.set(t.agent, t);

  const skitId = before?.skitId ?? prepared.skitId;
  const after: InstallationRecord = {
    schema: 1,
    skitId,
    provisional: before?.provisional ?? prepared.provisional,
    aliases,
    scope: input.scope,
    ...(input.scope === 'project' ? { projectRoot: input.projectRoot } : {}),
    release: prepared.release,
    bundleHash: prepared.bundleHash,
    // an update that keeps the id (the release's own id became an alias) keeps its skills' ids too
    skills: skitId === prepared.skitId ? prepared.skills : prepared.skills.map((k) => ({ ...k, id: `${skitId}:${k.name}` })),
    enablement: carriedOverrides(before, prepared, notes),
    targets: [],
    source: recordedSource(before, prepared.source),
    installerVersion: env.installerVersion,
    installedAt: before?.installedAt ?? env.now,
    updatedAt: env.now,
  };

  // indexed only when a check needs it: an update with nothing to do reads no other installation
  let index: PathOwners | undefined;
  const owners = () => (index ??= state.owners ?? PathOwners.of(state.installations));
  const mine = new Set((before?.targets ?? []).flatMap((t) => t.paths.map((p) => p.path)));
  const bundleChanged = !before || before.bundleHash !== prepared.bundleHash;
  const steps: Step[] = [];
  const events: Plan['events'] = [];
  // paths the change replaces or deletes, with the agent and skill recorded for them
  const touched: (ProjectedPath & { agent: string })[] = [];
  const shared: { target: TargetSpec; skillIds: Set<string> }[] = [];
  const verb = input.op === 'update' ? `update ${after.skitId}` : `reinstall ${after.skitId}`;

  for (const target of targets.values()) {
    const request = requestFor(after, target.agent, env.storeRoot, [...targets.values()]);
    const wanted = expectedPaths(target, request);
    shared.push({ target, skillIds: new Set(wanted.map((p) => p.skillId)) });
    after.targets.push(predictedRecord(target, request));
    const prior = before?.targets.find((t) => t.agent === target.agent);
    const wantedPaths = new Set(wanted.map((p) => p.path));
    const samePaths = prior && prior.paths.length === wanted.length && prior.paths.every((p) => wantedPaths.has(p.path));
    if (prior && !bundleChanged && samePaths && !input.moved?.some((m) => m.agent === target.agent)) {
      after.targets[after.targets.length - 1] = prior;
      continue;
    }
    assertNoCollisions(wanted, mine, owners(), before, state.observations);
    assertNotReplaced(wanted, state.observations, verb);
    const kept = input.keepEditedCopies && prior && before && bundleChanged ? keptCopies(prior, wantedPaths, before, after, state.observations) : [];
    steps.push({ kind: 'project', target, request: kept.length > 0 ? keepInPlace(request, kept) : request, ...(prior ? { record: prior } : {}) });
    for (const p of kept) notes.push(`${p.skillId} (${target.agent}): kept your edited copy ${p.path}; this release does not change the skill`);
    if (prior) {
      const stale = withoutReplaced(prior.paths.filter((p) => !wantedPaths.has(p.path)), state.observations, notes);
      const keptPaths = new Set(kept.map((p) => p.path));
      touched.push(...(bundleChanged ? prior.paths.filter((p) => !keptPaths.has(p.path)) : stale).map((p) => ({ ...p, agent: target.agent })));
      if (stale.length > 0) steps.push({ kind: 'unproject', target, record: { ...prior, paths: stale, configEdits: [] } });
    }
    events.push(
      inventoryEvent({
        action: prior ? 'updated' : 'installed',
        record: after,
        agent: target.agent,
        previous: before,
        now: env.now,
        id: env.newId(),
        installerVersion: env.installerVersion,
        // the release is reviewed once, on the first record of the change that brings it
        ...(bundleChanged && events.length === 0 && prepared.audit ? { audit: auditFor(prepared.audit, after, before ? 'update' : 'install') } : {}),
      }),
    );
  }
  assertSharedRootsAgree(shared);
  assertUnmodified(touched.map((p) => p.path), state.observations, input.force, verb);
  const overwrites = input.force ? editedPaths(touched, state.observations) : [];
  if (steps.some((s) => s.kind === 'unproject')) keepSharedPaths(steps, stillUsed(owners(), before, after));

  const originChange = originNote(before, after);
  if (originChange) notes.push(originChange);
  if (steps.length > 0) steps.unshift({ kind: 'store', bundleHash: prepared.bundleHash });
  else if (before && state.observations.storeEntryMissing) {
    // the same release again, but its store entry was deleted: storing it mends every link into it
    steps.push({ kind: 'store', bundleHash: prepared.bundleHash });
    notes.push(`${after.skitId}: put the release back into the store (it was missing, so its links dangled)`);
  } else if (before && !isDeepStrictEqual(before.release, after.release)) {
    // a new commit or ref with the same SKIT tree: the record follows the source, and says so
    if (!originChange) notes.push(`${after.skitId}: the source moved to ${releaseLabel(after.release, after.bundleHash)}; its skills are unchanged`);
    for (const t of after.targets) {
      events.push(inventoryEvent({ action: 'updated', record: after, agent: t.agent, previous: before, now: env.now, id: env.newId(), installerVersion: env.installerVersion }));
    }
  } else if (before && !isDeepStrictEqual(withoutRange(before.source), withoutRange(after.source))) {
    // the same tree from another place: the record now points there, so it is not "up to date"
    if (!originChange) notes.push(`${after.skitId}: its source is now ${after.source.canonical}; its skills are unchanged`);
  } else if (aliases.length === (before?.aliases.length ?? 0)) notes.push(upToDate(input.op, before, after));
  notes.push(...moveNotes(before, after, input.moved ?? []), ...defaultFlipNotes(before, after), ...rangeNotes(before, after), ...majorNote(before, after), ...newerNote(prepared, after));
  // releases of two different places are not older or newer than each other
  const downgrade = before && !originChange ? downgradeOf(before.release, after.release) : undefined;
  return {
    op: input.op,
    scopeKey: key,
    skitId: after.skitId,
    before,
    after,
    steps,
    events,
    gcCandidates: before && bundleChanged ? [before.bundleHash] : [],
    notes,
    ...(downgrade ? { downgrade } : {}),
    ...(overwrites.length > 0 ? { overwrites } : {}),
  };
}

/** The touched paths whose files were edited, once each (agents sharing a directory record it twice), with the files. */
function editedPaths(touched: readonly (ProjectedPath & { agent: string })[], observations: Observations): EditedPath[] {
  const out = new Map<string, EditedPath>();
  for (const p of touched) {
    const files = observations.paths[p.path]?.localChanges ?? [];
    if (files.length > 0 && !out.has(p.path)) out.set(p.path, { agent: p.agent, skillId: p.skillId, path: p.path, files });
  }
  return [...out.values()];
}

/** The prepared review at its stage, its skills named by the ids the record keeps (see `after.skills`). */
function auditFor(audit: PreparedAudit, after: InstallationRecord, stage: ReleaseAudit['stage']): ReleaseAudit {
  const idOf = (id: string) => after.skills.find((k) => k.name === id.slice(id.lastIndexOf(':') + 1))?.id ?? id;
  return { ...audit, stage, skills: audit.skills.map((k) => ({ ...k, id: idOf(k.id) })) };
}

/** Stale paths still used by another target (a shared skill root, by name or through a link) or installation are not removed. */
function keepSharedPaths(steps: Step[], used: (path: string) => boolean): void {
  for (const step of steps) {
    if (step.kind !== 'unproject') continue;
    step.record = { ...step.record, paths: step.record.paths.filter((p) => !used(p.path)) };
  }
}

