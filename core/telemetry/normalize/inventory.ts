import type { AgentSkillInventoryAction, AgentSkillReasonCode } from '../../../schemas/generated/semconv.js';
import { AGENT_SKILL_REASON_CODE_VALUES } from '../../../schemas/generated/semconv.js';
import type { InventoryEvent } from '../../library/types.js';
import { FORGE_VERSION } from '../../version.js';
import { artifactVersion } from '../enrich/release.js';
import type { ResourceAttributes } from '../event.js';
import { isoToNanos, secondsBetween } from '../time.js';
import type { NormalizerEngine } from './engine.js';
import { HOST_NAME } from './types.js';

/**
 * Install-layer outbox records ($SF_HOME/queue/outbox.jsonl) -> agent.skill.inventory.changed per
 * skill, plus agent.user.intervention for disable/remove, linked to the skill's latest activation
 * this observer saw (when it saw one). An update that left a skill's hash unchanged is no
 * inventory change and emits nothing for that skill.
 */

const ACTIONS: Record<InventoryEvent['action'], AgentSkillInventoryAction | undefined> = {
  installed: 'added', updated: 'hash_changed', enabled: 'enabled', disabled: 'disabled', removed: 'removed',
};

function hostName(agent: string): string {
  return (HOST_NAME as Record<string, string>)[agent] ?? 'other';
}

/** Normalizes one outbox record. */
export function normalizeInventory(engine: NormalizerEngine, rec: InventoryEvent): void {
  const at = isoToNanos(rec.timestamp);
  const resource: ResourceAttributes = {
    'service.name': 'sf', 'service.version': FORGE_VERSION, 'agent.host.name': hostName(rec.agent),
    'agent.adapter.name': 'sf-install', 'agent.adapter.version': rec.installer_version,
  };
  const common = {
    'agent.skill.evidence.source': 'filesystem',
    'agent.skill.evidence.fidelity': 'exact',
    'agent.skill.evidence.observer': engine.ctx.observer,
    'agent.host.name': resource['agent.host.name'],
    'agent.adapter.name': resource['agent.adapter.name'],
    'agent.adapter.version': resource['agent.adapter.version'],
    'agent.skill.package.id': rec.skit_id,
    'agent.skill.install.scope': rec.scope,
    'agent.skill.actor.type': rec.actor_type,
    'artifact.version': artifactVersion(rec.release),
    'artifact.hash': rec.bundle_hash,
  };
  for (const skill of rec.skills) {
    const action = ACTIONS[rec.action];
    if (!action || (rec.action === 'updated' && !skill.previous_hash)) continue;
    engine.push('agent.skill.inventory.changed', {
      ...common,
      'agent.skill.inventory.action': action,
      'agent.skill.id': skill.id,
      'agent.skill.name': skill.id.slice(skill.id.lastIndexOf(':') + 1),
      'agent.skill.content.hash': action === 'removed' ? undefined : skill.content_hash,
      'agent.skill.content.previous_hash': action === 'removed' ? skill.content_hash : skill.previous_hash,
    }, resource, at, ['inventory', rec.event_id, skill.id]);
  }
  const iv = rec.intervention;
  if (!iv) return;
  const reason = (AGENT_SKILL_REASON_CODE_VALUES as readonly string[]).includes(iv.reason_code) ? (iv.reason_code as AgentSkillReasonCode) : 'unknown';
  for (const skillId of iv.skill_ids) {
    const last = engine.lastBySkill.get(skillId);
    const attrs = {
      ...common,
      'agent.skill.evidence.source': 'user_report',
      'agent.user.intervention.type': iv.type,
      'agent.skill.reason.code': reason,
      'agent.skill.id': skillId,
      // the skill's latest activation: the intervention targets the skill, so the link is to its last
      // use, a guess that says so (the intervention itself is exact: the user did disable the skill)
      'agent.skill.activation.id': last?.activationId,
      'agent.skill.attribution.fidelity': last?.activationId ? 'inferred' : undefined,
      'agent.user.intervention.elapsed': last ? secondsBetween(last.at, at) : undefined,
    };
    engine.push('agent.user.intervention', attrs, resource, at, ['intervention', rec.event_id, skillId]);
    engine.metric({ name: 'agent.skill.user_intervention.count', value: 1, attributes: attrs });
  }
}
