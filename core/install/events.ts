import type { InstallationRecord, InventoryAction, InventoryEvent } from '../library/types.js';
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
  /** the record before an update, for previous hashes */
  previous?: InstallationRecord | null;
  now: string;
  id: string;
  installerVersion: string;
}

export function inventoryEvent(input: EventInput): InventoryEvent {
  const { record, agent, previous } = input;
  const names = input.skillNames ? new Set(input.skillNames) : null;
  const skills = record.skills
    .filter((s) => !names || names.has(s.name))
    .map((s) => {
      const prior = previous?.skills.find((p) => p.name === s.name);
      return {
        id: s.id,
        content_hash: s.hash,
        ...(prior && prior.hash !== s.hash ? { previous_hash: prior.hash } : {}),
        enabled: input.action === 'removed' ? false : isEnabled(record.enablement, s, agent),
      };
    });
  const event: InventoryEvent = {
    schema: 'forge/inventory-event/1',
    event_id: input.id,
    event_name: 'agent.skill.inventory.changed',
    timestamp: input.now,
    skit_id: record.skitId,
    release: record.release,
    bundle_hash: record.bundleHash,
    action: input.action,
    agent,
    scope: record.scope,
    actor_type: 'user',
    installer_version: input.installerVersion,
    skills,
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
