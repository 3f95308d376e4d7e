import { EVIDENCE_FIDELITIES, EVIDENCE_SOURCES, isOneOf, type EvidenceFidelity } from '../enums.js';
import type { SkillObservation } from './types.js';

/** The part of a normalized observation (schemas/json/observation-envelope.schema.json) this needs. */
export interface ObservedEvent {
  event_name: string;
  timestamp?: string;
  observed_timestamp: string;
  attributes: Record<string, unknown>;
}

export interface ObservationWindow {
  /** epoch milliseconds: ignore events before this time */
  sinceMs?: number;
  /** epoch milliseconds: ignore events after this time */
  untilMs?: number;
  /** only this host session (`session.id`) */
  session?: string;
}

/**
 * Active skills of a unit of work from normalized observations: one observation group per
 * (skill id, content hash, fidelity, source), counting distinct activations that reached
 * `agent.skill.loaded`. A selection that never loaded is not "active"; install and inventory
 * events never count. Pure.
 */
export function observationsFromEvents(events: readonly ObservedEvent[], window: ObservationWindow = {}): SkillObservation[] {
  const groups = new Map<string, SkillObservation & { ids: Set<string> }>();
  for (const e of events) {
    if (e.event_name !== 'agent.skill.loaded') continue;
    const a = e.attributes;
    // compared as times, not strings: "+02:00" and "Z" spellings of one instant sort differently
    const at = Date.parse(e.timestamp ?? e.observed_timestamp);
    if ((window.sinceMs !== undefined && !(at >= window.sinceMs)) || (window.untilMs !== undefined && !(at <= window.untilMs))) continue;
    if (window.session && a['session.id'] !== window.session) continue;
    const skillId = typeof a['agent.skill.id'] === 'string' ? a['agent.skill.id'] : undefined;
    if (!skillId) continue;
    const contentHash = typeof a['agent.skill.content.hash'] === 'string' ? a['agent.skill.content.hash'] : undefined;
    const fidelity: EvidenceFidelity = isOneOf(EVIDENCE_FIDELITIES, a['agent.skill.evidence.fidelity']) ? a['agent.skill.evidence.fidelity'] : 'unknown';
    const source = isOneOf(EVIDENCE_SOURCES, a['agent.skill.evidence.source']) ? a['agent.skill.evidence.source'] : undefined;
    const key = [skillId, contentHash ?? '', fidelity, source ?? ''].join('\u0000');
    const group = groups.get(key) ?? { skillId, ...(contentHash ? { contentHash } : {}), fidelity, ...(source ? { source } : {}), activations: 0, ids: new Set<string>() };
    const activation = typeof a['agent.skill.activation.id'] === 'string' ? a['agent.skill.activation.id'] : `event:${String(a['agent.skill.event.id'] ?? group.ids.size)}`;
    group.ids.add(activation);
    group.activations = group.ids.size;
    groups.set(key, group);
  }
  return [...groups.values()].map(({ ids, ...o }) => ({ ...o, activations: ids.size }));
}
