import type { AgentActionApprovalState, AgentActionScope, AgentActionType, AgentSkillAttributionFidelity } from '../../../schemas/generated/semconv.js';
import type { ResourceAttributes } from '../event.js';
import { deriveTraceId, hostTraceId, isSpanId } from '../ids.js';
import type { NormalizerEngine } from './engine.js';
import type { Activation, HostId } from './types.js';

/**
 * agent.action.completed: a tool call made while skills were active. The action keeps the host's
 * tool identity (gen_ai.tool.name / call id) and lists every active activation; attribution is
 * never exclusive to one skill.
 */

const TOOL_TYPES: Readonly<Record<string, AgentActionType>> = {
  // Claude Code
  Bash: 'process.execute', Edit: 'filesystem.write', Write: 'filesystem.write', MultiEdit: 'filesystem.write', NotebookEdit: 'filesystem.write',
  Read: 'filesystem.read', Grep: 'filesystem.read', Glob: 'filesystem.read', LS: 'filesystem.read', NotebookRead: 'filesystem.read',
  WebFetch: 'network.request', WebSearch: 'network.request',
  // Codex
  exec_command: 'process.execute', shell: 'process.execute', local_shell: 'process.execute', unified_exec: 'process.execute',
  apply_patch: 'filesystem.write', read_file: 'filesystem.read', list_dir: 'filesystem.read', grep_files: 'filesystem.read', view_image: 'filesystem.read',
  web_search: 'network.request',
  // OpenCode
  bash: 'process.execute', edit: 'filesystem.write', write: 'filesystem.write', patch: 'filesystem.write', multiedit: 'filesystem.write',
  read: 'filesystem.read', grep: 'filesystem.read', glob: 'filesystem.read', list: 'filesystem.read', webfetch: 'network.request', websearch: 'network.request',
};

/**
 * A host's tool name as metadata: a plain identifier (`Bash`, `mcp__github__create_issue`), else
 * undefined. Some hosts put the command line or a path in it, which is content.
 */
export const metadataToolName = (tool: unknown): string | undefined => (typeof tool === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(tool) ? tool : undefined);

/** agent.action.type of a host tool name ('other' when unknown). */
// own properties only: a tool named "constructor" must not find Object.prototype's
export const actionTypeOf = (tool: string): AgentActionType => (Object.hasOwn(TOOL_TYPES, tool) ? TOOL_TYPES[tool] : 'other');

const MUTATING: Partial<Record<AgentActionType, boolean>> = {
  'filesystem.write': true, 'filesystem.delete': true, 'git.commit': true, 'git.push': true, 'cloud.deploy': true, 'database.migrate': true,
  'message.send': true, 'filesystem.read': false, 'network.request': false,
};
const SCOPE: Partial<Record<AgentActionType, AgentActionScope>> = {
  'filesystem.read': 'workspace', 'filesystem.write': 'workspace', 'filesystem.delete': 'workspace', 'git.commit': 'repository',
  'git.push': 'remote_repository', 'network.request': 'external_service',
};

/**
 * Approval state from a host decision. "Allowed by configuration" is not_required; a user's
 * answer is granted/denied; anything else stays unknown (absence of a prompt never proves
 * suppression).
 */
export function approvalOf(decision: string | undefined, source: string | undefined): AgentActionApprovalState {
  const d = (decision ?? '').toLowerCase();
  const s = (source ?? '').toLowerCase();
  if (d === 'reject' || d === 'denied' || d === 'deny' || d === 'abort') return 'denied';
  if (d === 'accept' || d === 'approved' || d === 'approved_for_session' || d === 'allow') {
    if (s === 'config') return 'not_required';
    if (s.startsWith('user')) return 'granted';
  }
  return 'unknown';
}

export interface ActionInput {
  host: HostId;
  sessionId?: string;
  /** restricts the active set to activations of this turn when given */
  turnId?: string;
  tool: string;
  callId?: string;
  success?: boolean;
  approval: AgentActionApprovalState;
  at: string;
  resource: ResourceAttributes;
  evidence: Activation['evidence'];
  hostTraceId?: string;
  hostSpanId?: string;
  /** attribution when the activations and the action share no exact identifier */
  attribution: (active: Activation[]) => AgentSkillAttributionFidelity;
  idParts: readonly (string | number | undefined)[];
  conversationId?: string;
}

/** Emits agent.action.completed when skills were active in the session (and turn); otherwise nothing. */
export function emitAction(engine: NormalizerEngine, input: ActionInput): void {
  const active: Activation[] = [];
  for (const a of engine.activations.values()) {
    if (a.host === input.host && a.sessionId === input.sessionId && a.result === 'ok' && (input.turnId === undefined || a.turnId === input.turnId)) active.push(a);
  }
  if (active.length === 0) return;
  const type = actionTypeOf(input.tool);
  const session = engine.ctx.session(input.host, input.sessionId);
  const traceId = hostTraceId(input.hostTraceId) ?? deriveTraceId([input.host, input.sessionId ?? '', input.turnId ?? input.callId ?? '']);
  const attrs: Record<string, unknown> = {
    'agent.action.type': type,
    'agent.action.mutating': MUTATING[type],
    'agent.action.scope': SCOPE[type] ?? 'unknown',
    'agent.action.approval.state': input.approval,
    'agent.action.result': input.success === undefined ? 'unknown' : input.success ? 'ok' : 'error',
    'agent.skill.activation.ids': active.map((a) => a.id),
    'agent.skill.attribution.fidelity': input.attribution(active),
    'agent.skill.evidence.source': input.evidence,
    'agent.skill.evidence.fidelity': 'exact',
    'agent.skill.evidence.observer': engine.ctx.observer,
    'agent.host.name': input.resource['agent.host.name'],
    'agent.host.version': input.resource['agent.host.version'],
    'agent.adapter.name': input.resource['agent.adapter.name'],
    'agent.adapter.version': input.resource['agent.adapter.version'],
    'session.id': input.sessionId,
    'agent.turn.id': input.turnId,
    'gen_ai.conversation.id': input.conversationId,
    // the type above is mapped from the raw name; only a plain identifier is sent
    'gen_ai.tool.name': metadataToolName(input.tool),
    'gen_ai.tool.call.id': input.callId,
    'forge.repository.resolution': session?.repositoryResolved ? undefined : 'repo_unresolved',
    'error.type': input.success === false ? 'tool_error' : undefined,
  };
  const spanId = hostTraceId(input.hostTraceId) && isSpanId(input.hostSpanId) ? input.hostSpanId : undefined;
  engine.push('agent.action.completed', attrs, input.resource, input.at, [input.host, input.sessionId, ...input.idParts], traceId, spanId);
}
