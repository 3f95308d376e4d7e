import type { InstallationRecord, InventoryAction, InventoryEvent, SkillRecord } from '../library/types.js';
import type { ReleaseAudit } from './audit.js';
import { isEnabled } from './enablement.js';

/**
 * Builders of the `agent.skill.inventory.changed` records that every install, update, remove,
 * enable and disable appends to the outbox (one per agent target). Pure.
 */

export interface EventInput {
  action: InventoryAction;
  record: InstallationRecord;
  agent: string;
  /** the skills the change concerns (default: every skill of the record) */
  skillNames?: readonly string[];
  /** the record before an update: previous hashes, and the skills the update added or dropped */
  previous?: InstallationRecord | null;
  now: string;
  id: string;
  installerVersion: string;
  /** the declaration review of the release the change brings (one record of the change carries it) */
  audit?: ReleaseAudit;
}

type SkillEntry = InventoryEvent['skills'][number];

/** One skill of `record` as the change reports it for `agent`. */
function skillEntry(input: EventInput, s: SkillRecord): SkillEntry {
  const { previous, action } = input;
  const prior = previous?.skills.find((p) => p.name === s.name);
  return {
    id: s.id,
    content_hash: s.hash,
    ...(prior && prior.hash !== s.hash ? { previous_hash: prior.hash } : {}),
    enabled: action === 'removed' ? false : isEnabled(input.record.enablement, s, input.agent),
    // an update that brought the skill: the observer reports it added (older observers skip it)
    ...(action === 'updated' && previous && !prior ? { change: 'added' as const } : {}),
  };
}

/** The skills an update dropped, with the hash they had: the observer reports them removed. */
function droppedSkills(record: InstallationRecord, previous: InstallationRecord | null | undefined): SkillEntry[] {
  const kept = new Set(record.skills.map((s) => s.name));
  return (previous?.skills ?? []).filter((p) => !kept.has(p.name)).map((p) => ({ id: p.id, content_hash: p.hash, enabled: false, change: 'removed' as const }));
}

export function inventoryEvent(input: EventInput): InventoryEvent {
  const { record, agent } = input;
  const names = input.skillNames ? new Set(input.skillNames) : null;
  const skills = record.skills.filter((s) => !names || names.has(s.name)).map((s) => skillEntry(input, s));
  const dropped = input.action === 'updated' ? droppedSkills(record, input.previous) : [];
  skills.push(...dropped);
  const event: InventoryEvent = {
    schema: 'forge/inventory-event/1',
    event_id: input.id,
    event_name: 'agent.skill.inventory.changed',
    timestamp: input.now,
    skit_id: record.skitId,
    release: record.release,
    bundle_hash: record.bundleHash,
    // the release the dropped skills were part of: their removed events name it
    ...(dropped.length > 0 && input.previous ? { previous_release: input.previous.release, previous_bundle_hash: input.previous.bundleHash } : {}),
    action: input.action,
    agent,
    scope: record.scope,
    // tells project installations apart (local only: the observer matches on it, never exports it)
    ...(record.projectRoot !== undefined ? { project_root: record.projectRoot } : {}),
    actor_type: 'user',
    installer_version: input.installerVersion,
    skills,
    ...(input.audit ? { audit: input.audit } : {}),
  };
  if (input.action === 'disabled' || input.action === 'removed') {
    event.intervention = {
      type: input.action === 'disabled' ? 'disable_skill' : 'uninstall_skill',
      reason_code: 'unknown',
      skill_ids: skills.map((s) => s.id),
    };
  }
  return event;
}
