import type { AgentSkillInventoryAction, AgentSkillReasonCode } from '../../../schemas/generated/semconv.js';
import { AGENT_SKILL_REASON_CODE_VALUES } from '../../../schemas/generated/semconv.js';
import type { InventoryEvent } from '../../library/types.js';
import { FORGE_VERSION } from '../../version.js';
import { artifactVersion } from '../enrich/release.js';
import type { ResourceAttributes } from '../event.js';
import { isoToNanos, secondsBetween } from '../time.js';
import { installationKey, type NormalizerEngine } from './engine.js';
import { HOST_NAME } from './types.js';

/**
 * Install-layer outbox records ($SF_HOME/queue/outbox.jsonl) -> agent.skill.inventory.changed per
 * skill, plus agent.user.intervention for disable/remove, linked to the latest activation this
 * observer saw of that installation of the skill for that agent (when it saw one). An update that
 * left a skill's hash unchanged is no inventory change and emits nothing for that skill.
 */

const ACTIONS: Record<Exclude<InventoryEvent['action'], 'updated'>, AgentSkillInventoryAction> = {
  installed: 'added', enabled: 'enabled', disabled: 'disabled', removed: 'removed',
};

/**
 * What one skill of a record reports, or undefined when it is no inventory change. A skill an
 * install or an update brings is added, unless it is disabled for the agent (off by default): then
 * it did not become available to it (its `enabled` is the change that does). In an update, one it
 * dropped is removed, a kept one changed hash or is no change at all.
 */
function skillAction(rec: InventoryEvent, skill: InventoryEvent['skills'][number]): AgentSkillInventoryAction | undefined {
  if (rec.action === 'installed') return skill.enabled ? 'added' : undefined;
  if (rec.action !== 'updated') return ACTIONS[rec.action];
  if (skill.change === 'removed') return 'removed';
  if (skill.change === 'added') return skill.enabled ? 'added' : undefined;
  return skill.previous_hash ? 'hash_changed' : undefined;
}

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
    const action = skillAction(rec, skill);
    if (!action) continue;
    engine.push('agent.skill.inventory.changed', {
      ...common,
      // a skill an update dropped was part of the release before it, not of the new one
      ...(skill.change === 'removed' && rec.previous_bundle_hash ? { 'artifact.version': artifactVersion(rec.previous_release ?? {}), 'artifact.hash': rec.previous_bundle_hash } : {}),
      'agent.skill.inventory.action': action,
      'agent.skill.id': skill.id,
      'agent.skill.name': skill.id.slice(skill.id.lastIndexOf(':') + 1),
      'agent.skill.content.hash': action === 'removed' ? undefined : skill.content_hash,
      'agent.skill.content.previous_hash': action === 'removed' ? skill.content_hash : skill.previous_hash,
    }, resource, at, ['inventory', rec.event_id, skill.id]);
  }
  if (rec.audit) normalizeAudit(engine, rec, rec.audit, common, resource, at);
  const iv = rec.intervention;
  if (!iv) return;
  const reason = (AGENT_SKILL_REASON_CODE_VALUES as readonly string[]).includes(iv.reason_code) ? (iv.reason_code as AgentSkillReasonCode) : 'unknown';
  for (const skillId of iv.skill_ids) {
    const key = installationKey({ skillId, agent: rec.agent, scope: rec.scope, projectRoot: rec.project_root });
    const last = key === undefined ? undefined : engine.lastBySkill.get(key);
    const attrs = {
      ...common,
      'agent.skill.evidence.source': 'user_report',
      'agent.user.intervention.type': iv.type,
      'agent.skill.reason.code': reason,
      'agent.skill.id': skillId,
      // the latest activation of this installation for this agent: the intervention targets the skill
      // there, so the link is to its last use, a guess that says so (the intervention itself is exact:
      // the user did disable the skill); another scope, project or host's activation is never linked
      'agent.skill.activation.id': last?.activationId,
      'agent.skill.attribution.fidelity': last?.activationId ? 'inferred' : undefined,
      'agent.user.intervention.elapsed': last ? secondsBetween(last.at, at) : undefined,
    };
    engine.push('agent.user.intervention', attrs, resource, at, ['intervention', rec.event_id, skillId]);
    engine.metric({ name: 'agent.skill.user_intervention.count', value: 1, attributes: attrs });
  }
}

/**
 * The declaration review a record carries (core/install/audit.ts) -> agent.skill.audit.completed
 * for each contained skill. Undeclared is what the ruleset inferred and the skill does not declare
 * (all of it when the skill declares nothing).
 *
 * Static analysis is evidence, not truth: the ruleset looks at few capability classes
 * (forge-declarations 1.0.0: executables only), so the inferred and undeclared lists are sent only
 * when it found something; an empty list would say "none" for every class it never analysed. Its
 * findings are computed by a deterministic rule from the release's files: `derived`, not `exact`.
 */
function normalizeAudit(engine: NormalizerEngine, rec: InventoryEvent, audit: NonNullable<InventoryEvent['audit']>, common: Record<string, unknown>, resource: ResourceAttributes, at: string): void {
  for (const skill of audit.skills) {
    const declared = new Set(skill.declared ?? []);
    const undeclared = skill.inferred.filter((c) => !declared.has(c));
    engine.push('agent.skill.audit.completed', {
      'agent.skill.evidence.source': 'static_analysis',
      'agent.skill.evidence.fidelity': 'derived',
      'agent.skill.evidence.observer': common['agent.skill.evidence.observer'],
      'agent.host.name': common['agent.host.name'],
      'agent.adapter.name': common['agent.adapter.name'],
      'agent.adapter.version': common['agent.adapter.version'],
      'agent.skill.package.id': rec.skit_id,
      'artifact.version': common['artifact.version'],
      'artifact.hash': rec.bundle_hash,
      'agent.skill.id': skill.id,
      'agent.skill.name': skill.id.slice(skill.id.lastIndexOf(':') + 1),
      'agent.skill.content.hash': skill.content_hash,
      'agent.skill.audit.ruleset.id': audit.ruleset_id,
      'agent.skill.audit.ruleset.version': audit.ruleset_version,
      'agent.skill.audit.stage': audit.stage,
      'agent.skill.capability.declared': skill.declared,
      'agent.skill.capability.inferred': skill.inferred.length ? skill.inferred : undefined,
      'agent.skill.capability.undeclared': undeclared.length ? undeclared : undefined,
      'agent.skill.mutation.scope': skill.mutation_scopes,
      'agent.skill.audit.finding.count': skill.findings,
      // an install refuses a SKIT with errors, so nothing it records can block
      'agent.skill.audit.finding.blocking.count': 0,
      'agent.skill.audit.model_assisted': false,
    }, resource, at, ['audit', rec.event_id, skill.id]);
  }
}
