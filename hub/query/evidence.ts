import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { str, strList } from '../normalize/values.js';
import type { ActivationActionRow, AttributionFidelity, ChangeOutcomeRow, SkillFeedbackIncidentRow } from '../projections/rows.js';
import type { ProjectionReader } from '../storage/telemetry-ports.js';
import { activationView, type ActivationView } from './views.js';

/**
 * The skill evidence (incident) view: everything the metadata-only evidence says about one
 * contained skill in a window — static audits, how it was selected, what ran while it was active,
 * what changed, how users reacted — plus the two summaries the spec's incident reconstructions end
 * with: the exact releases involved with declared/inferred/observed capabilities, and cohorts by
 * version, host, model and skill combination.
 */

export interface AuditView {
  eventId: string;
  time: string;
  rulesetId?: string;
  rulesetVersion?: string;
  artifactVersion?: string;
  artifactHash?: string;
  contentHash?: string;
  triggerBreadth?: string;
  riskFlags: string[];
  declared: string[];
  inferred: string[];
  undeclared: string[];
  mutationScope: string[];
  authorityEffect?: string;
  confirmationEffect?: string;
}

export interface CapabilityView {
  capability: string;
  /** a static audit found it declared */
  declared: boolean;
  /** a static audit inferred it from the skill's contents */
  inferred: boolean;
  /** an action attributed to this skill alone (exact) used it: shared or inferred actions never make it observed */
  observed: boolean;
  /**
   * the actions that used it, by attribution fidelity: `exact` this skill alone, `shared` while
   * other skills were active too, `inferred`/`unknown` a guessed link to the skill
   */
  actionsByFidelity: Record<AttributionFidelity, number>;
}

export interface CohortView {
  version: string;
  host: string;
  model: string;
  /** skills of the activations that were active together with this skill */
  withSkills: string[];
  activations: number;
  interventions: number;
  incidents: number;
}

export interface EvidenceView {
  skillId: string;
  window: { from: string; to: string };
  releases: { artifactVersion?: string; artifactHash?: string; contentHash?: string; activations: number }[];
  audits: AuditView[];
  triggers: { explicit: number; implicit: number; other: number; sources: Record<string, number> };
  activations: ActivationView[];
  actions: ActivationActionRow[];
  changes: ChangeOutcomeRow[];
  feedback: SkillFeedbackIncidentRow[];
  capabilities: CapabilityView[];
  cohorts: CohortView[];
  truncated: boolean;
}

const MAX_ITEMS = 2000;
const byTime = <T extends { time: string }>(a: T, b: T) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0);

/** An event's identity: event ids are unique per device (two devices may report one commit with the same id). */
const eventKey = (r: { deviceId: string; eventId: string }) => `${r.deviceId} ${r.eventId}`;

function uniqueBy<T>(rows: T[], key: (r: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const r of rows) if (!seen.has(key(r))) seen.set(key(r), r);
  return [...seen.values()];
}

export function skillEvidence(reader: ProjectionReader, accountId: string, skillId: string, fromMs: number, toMs: number): EvidenceView {
  const items = reader.skillItems(accountId, skillId, fromMs, toMs, MAX_ITEMS + 1);
  const audits: AuditView[] = [];
  // activations by device and id (activation ids are unique per device only)
  const activationKeys = new Map<string, [string, string]>();
  const feedback: SkillFeedbackIncidentRow[] = [];
  for (const item of items.slice(0, MAX_ITEMS)) {
    const e = reader.getEvent(accountId, item.eventId, item.deviceId);
    if (!e) continue;
    if (e.activationId) activationKeys.set(`${e.deviceId} ${e.activationId}`, [e.deviceId, e.activationId]);
    if (e.eventName === 'agent.skill.audit.completed') {
      const a = e.attributes as OtlpAttributes;
      const audit: AuditView = {
        eventId: e.eventId, time: e.time,
        riskFlags: strList(a, 'agent.skill.risk.flags') ?? [],
        declared: strList(a, 'agent.skill.capability.declared') ?? [],
        inferred: strList(a, 'agent.skill.capability.inferred') ?? [],
        undeclared: strList(a, 'agent.skill.capability.undeclared') ?? [],
        mutationScope: strList(a, 'agent.skill.mutation.scope') ?? [],
      };
      const opt = { rulesetId: str(a, 'agent.skill.audit.ruleset.id'), rulesetVersion: str(a, 'agent.skill.audit.ruleset.version'), artifactVersion: e.artifactVersion, artifactHash: e.artifactHash, contentHash: e.contentHash, triggerBreadth: str(a, 'agent.skill.trigger.breadth'), authorityEffect: str(a, 'agent.skill.authority.effect'), confirmationEffect: str(a, 'agent.skill.confirmation.effect') };
      for (const [k, v] of Object.entries(opt)) if (v !== undefined) (audit as unknown as Record<string, unknown>)[k] = v;
      audits.push(audit);
    }
    const f = reader.getFeedback(accountId, e.eventId, e.deviceId);
    if (f) feedback.push(f);
  }
  const activations = [...activationKeys.values()].map(([device, id]) => activationView(reader, accountId, device, id)).filter((v): v is ActivationView => v !== undefined);
  const actions = uniqueBy(activations.flatMap((v) => v.actions), eventKey).sort(byTime);
  const changes = uniqueBy(activations.flatMap((v) => v.changes), eventKey).sort(byTime);
  const allFeedback = uniqueBy([...feedback, ...activations.flatMap((v) => v.interventions)], eventKey).sort(byTime);

  const caps = new Map<string, CapabilityView>();
  const cap = (name: string) => caps.get(name) ?? caps.set(name, { capability: name, declared: false, inferred: false, observed: false, actionsByFidelity: { exact: 0, shared: 0, inferred: 0, unknown: 0 } }).get(name)!;
  for (const a of audits) {
    for (const c of a.declared) cap(c).declared = true;
    for (const c of a.inferred) cap(c).inferred = true;
  }
  // the spec's "never collapse inferred and exact observations into the same count": each action
  // counts under its own fidelity, and only an exact one is this skill's own observation
  for (const act of actions) {
    const c = cap(act.actionType);
    c.actionsByFidelity[act.attributionFidelity]++;
    if (act.attributionFidelity === 'exact') c.observed = true;
  }

  const releases = new Map<string, EvidenceView['releases'][number]>();
  for (const v of activations) {
    const key = `${v.artifactVersion ?? ''}\u0000${v.artifactHash ?? ''}\u0000${v.contentHash ?? ''}`;
    const r = releases.get(key) ?? { ...(v.artifactVersion ? { artifactVersion: v.artifactVersion } : {}), ...(v.artifactHash ? { artifactHash: v.artifactHash } : {}), ...(v.contentHash ? { contentHash: v.contentHash } : {}), activations: 0 };
    r.activations++;
    releases.set(key, r);
  }

  const cohorts = new Map<string, CohortView>();
  for (const v of activations) {
    const withSkills = [...new Set(v.activeSet.map((id) => reader.getActivation(accountId, id, v.deviceId)?.skillId ?? 'unknown'))].sort();
    const key = JSON.stringify([v.artifactVersion ?? '', v.hostName ?? v.serviceName ?? '', v.model ?? '', withSkills]);
    const c = cohorts.get(key) ?? { version: v.artifactVersion ?? '', host: v.hostName ?? v.serviceName ?? '', model: v.model ?? '', withSkills, activations: 0, interventions: 0, incidents: 0 };
    c.activations++;
    c.interventions += v.interventions.filter((f) => f.kind !== 'incident').length;
    c.incidents += v.interventions.filter((f) => f.kind === 'incident').length;
    cohorts.set(key, c);
  }

  const triggers = { explicit: 0, implicit: 0, other: 0, sources: {} as Record<string, number> };
  for (const v of activations) {
    if (v.triggerType === 'explicit') triggers.explicit++;
    else if (v.triggerType === 'implicit') triggers.implicit++;
    else triggers.other++;
    if (v.triggerSource) triggers.sources[v.triggerSource] = (triggers.sources[v.triggerSource] ?? 0) + 1;
  }

  return {
    skillId,
    window: { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() },
    releases: [...releases.values()],
    audits: audits.sort(byTime),
    triggers,
    activations: activations.sort((a, b) => (a.firstSeen < b.firstSeen ? -1 : 1)),
    actions,
    changes,
    feedback: allFeedback,
    capabilities: [...caps.values()].sort((a, b) => (a.capability < b.capability ? -1 : 1)),
    cohorts: [...cohorts.values()],
    truncated: items.length > MAX_ITEMS,
  };
}
