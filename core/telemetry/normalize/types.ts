import type { ObservationEnvelope } from '../../../schemas/generated/observation-envelope.js';
import type {
  AgentSkillEvidenceFidelity, AgentSkillEvidenceSource, AgentSkillSelectorType, AgentSkillTriggerType, MetricName,
} from '../../../schemas/generated/semconv.js';
import type { SkillIdentity } from '../enrich/identity.js';
import type { HostSkillScope, SkillQuery, SkillResolution } from '../enrich/skill-index.js';
import type { ResourceAttributes } from '../event.js';
import type { OtlpSpan } from '../otlp/types.js';

/** Adapter ids of the hosts the normalizer understands. */
export type HostId = 'claude-code' | 'codex' | 'opencode';

/** agent.host.name of each host. */
export const HOST_NAME = { 'claude-code': 'claude_code', codex: 'codex', opencode: 'opencode' } as const;

/** What the observer knows about a host session (from the session registry). */
export interface SessionInfo {
  /** the registered, canonical working directory */
  cwd?: string;
  /** resource attributes from repository resolution: forge.*.fingerprint */
  fingerprints: Partial<Record<'forge.repository.fingerprint' | 'forge.worktree.fingerprint' | 'forge.workspace.fingerprint', string>>;
  /** false for unregistered sessions and unresolved or ambiguous repositories */
  repositoryResolved: boolean;
  /** current commit (exported only with content opt-in) */
  headRevision?: string;
}

/** Everything the normalizer needs from outside; all of it injectable, so tests need no disk. */
export interface NormalizeContext {
  /** agent.skill.evidence.observer */
  observer: string;
  /** agent.adapter.version of the normalization code */
  adapterVersion: string;
  /** the user opted in to content collection (paths; see README) */
  content: boolean;
  /** current time, nanoseconds string */
  now(): string;
  resolveSkill(q: SkillQuery): SkillResolution;
  session(host: HostId, sessionId: string | undefined): SessionInfo | undefined;
  /** seconds an unfinished activation waits for missing evidence before it is settled (default 120) */
  settleAfterSeconds?: number;
}

/** One sample for a client metric (filtered to allowed dimensions by ClientMetrics). */
export interface MetricSample {
  name: MetricName;
  value: number;
  attributes: Record<string, unknown>;
}

/** A span with the resource it belongs to. */
export interface ResourceSpan {
  resource: ResourceAttributes;
  span: OtlpSpan;
}

/** What one normalization call produced. */
export interface NormalizedOutput {
  events: ObservationEnvelope[];
  spans: ResourceSpan[];
  metrics: MetricSample[];
}

export const emptyOutput = (): NormalizedOutput => ({ events: [], spans: [], metrics: [] });

/** One skill activation followed from selection to its load result. */
export interface Activation {
  id: string;
  /** native identity (unique per host record that started it) */
  key: string;
  host: HostId;
  sessionId?: string;
  turnId?: string;
  conversationId?: string;
  /** skill name as the host reported it; undefined while redacted */
  name?: string;
  nameFidelity: AgentSkillEvidenceFidelity;
  hostScope: HostSkillScope;
  dir?: string;
  trigger: AgentSkillTriggerType;
  selector: AgentSkillSelectorType;
  triggerSource?: string;
  evidence: AgentSkillEvidenceSource;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  resource: ResourceAttributes;
  model?: string;
  selectedAt: string;
  loadStartedAt?: string;
  finishedAt?: string;
  result?: 'ok' | 'error' | 'blocked';
  /** settled once the identity is known; until then emissions wait in `pending` */
  identity?: SkillIdentity;
  /** the activation waits for its load result before settling its identity (plugin: the result names the directory) */
  settleOnResult: boolean;
  hostPlugin?: boolean;
  pending: (() => void)[];
  lastTouched: string;
}
