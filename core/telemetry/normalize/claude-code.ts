import type { OtlpAttributes, OtlpLogRecord } from '../otlp/types.js';
import { approvalOf, emitAction } from './actions.js';
import type { NormalizerEngine } from './engine.js';
import { jsonField, num, recordTime, str } from './native.js';
import type { HostSkillScope } from '../enrich/skill-index.js';

/**
 * Claude Code native OTel logs (scope com.anthropic.claude_code.events) -> agent.skill.*:
 *   tool_decision(Skill)   -> agent.skill.selected (and load_failed/blocked when rejected)
 *   skill_activated        -> agent.skill.load_started; for `/name` (user-slash) selected + loaded
 *   tool_result(Skill)     -> agent.skill.loaded / load_failed
 *   tool_result(other)     -> agent.action.completed when skills are active in the same prompt
 *   api_request skill.name -> names an activation whose name the host redacted (derived)
 * Every other record, and every content attribute (prompts, tool input/output), is dropped.
 */

const HOST = 'claude-code' as const;
/** the literal Claude Code writes for user/project skill names unless OTEL_LOG_TOOL_DETAILS=1 */
const REDACTED = 'custom_skill';

function scopeOf(source: string | undefined): { hostScope: HostSkillScope; hostPlugin: boolean } {
  if (source === 'projectSettings') return { hostScope: 'project', hostPlugin: false };
  if (source === 'userSettings') return { hostScope: 'user', hostPlugin: false };
  if (source === undefined) return { hostScope: 'unknown', hostPlugin: false };
  return { hostScope: 'other', hostPlugin: source === 'plugin' || source === 'bundled' };
}

const skillNameOf = (a: OtlpAttributes): string | undefined => {
  const n = str(a, 'skill.name');
  return n === REDACTED ? undefined : n;
};

/** Normalizes one Claude Code log record. */
export function normalizeClaudeRecord(engine: NormalizerEngine, nativeResource: OtlpAttributes, rec: OtlpLogRecord): void {
  const a = rec.attributes;
  const name = (str(a, 'event.name') ?? rec.eventName ?? (typeof rec.body === 'string' ? rec.body : '')).replace(/^claude_code\./, '');
  const session = str(a, 'session.id');
  const turn = str(a, 'prompt.id');
  const seq = num(a, 'event.sequence');
  const at = recordTime(rec);
  const ids = [turn, seq, name];
  const resource = () => engine.resourceFor(HOST, nativeResource, session);
  const toolUse = str(a, 'tool_use_id');
  const key = (suffix: string) => `${HOST}|${session}|${suffix}`;
  const startModelCall = (skill: string | undefined, hostScope: HostSkillScope = 'unknown') =>
    engine.start({ key: key(`tool|${toolUse ?? `${turn}|${seq}`}`), host: HOST, sessionId: session, turnId: turn, name: skill, hostScope, trigger: 'implicit', selector: 'model', triggerSource: 'model_tool_call', evidence: 'native_otel', at, resource: resource(),
      // the skill's scope (project/user) arrives with skill_activated: settle the identity then, or at the result
      settleOnResult: true });

  switch (name) {
    case 'tool_decision': {
      if (str(a, 'tool_name') !== 'Skill') {
        if (toolUse) engine.decisions.set(key(toolUse), { decision: str(a, 'decision'), source: str(a, 'source') });
        return;
      }
      const act = startModelCall(jsonField(a, 'tool_parameters', 'skill_name'));
      engine.emit(act, 'agent.skill.selected', { 'agent.skill.phase': 'selected' }, at, ids);
      if (str(a, 'decision') === 'reject') engine.finish(act, at, { result: 'blocked', errorType: 'permission_denied', errorStage: 'permission' }, ids);
      return;
    }
    case 'skill_activated': {
      const { hostScope, hostPlugin } = scopeOf(str(a, 'skill.source'));
      const skill = skillNameOf(a);
      if (str(a, 'invocation_trigger') === 'user-slash') {
        const act = engine.start({ key: key(`slash|${turn}|${seq}`), host: HOST, sessionId: session, turnId: turn, name: skill, hostScope, hostPlugin, trigger: 'explicit', selector: 'user', triggerSource: 'user_slash_command', evidence: 'native_otel', at, resource: resource() });
        engine.emit(act, 'agent.skill.selected', { 'agent.skill.phase': 'selected' }, at, ids);
        // a slash command injects the body synchronously; Claude reports no separate load result
        engine.finish(act, at, { result: 'ok' }, ids, 'derived');
        return;
      }
      let act = engine.find(HOST, session, (x) => x.turnId === turn && x.selector === 'model' && !x.loadStartedAt && !x.finishedAt && (!skill || !x.name || x.name === skill));
      if (!act) {
        act = startModelCall(skill, hostScope);
        engine.emit(act, 'agent.skill.selected', { 'agent.skill.phase': 'selected' }, at, ids);
      }
      act.hostScope = hostScope;
      act.hostPlugin = hostPlugin;
      act.settleOnResult = false;
      if (skill) engine.setName(act, skill, 'exact');
      engine.trySettle(act);
      act.loadStartedAt = at;
      engine.emit(act, 'agent.skill.load_started', { 'agent.skill.phase': 'load_started' }, at, ids);
      return;
    }
    case 'tool_result': {
      const tool = str(a, 'tool_name');
      const success = str(a, 'success') === 'true' || a.success === true;
      if (tool !== 'Skill') {
        if (!tool) return;
        const d = toolUse ? engine.decisions.get(key(toolUse)) : undefined;
        emitAction(engine, { host: HOST, sessionId: session, turnId: turn, tool, callId: toolUse, success, approval: approvalOf(d?.decision, d?.source), at, resource: resource(), evidence: 'native_otel', attribution: () => 'shared', idParts: ids });
        return;
      }
      const act = engine.activations.get(key(`tool|${toolUse ?? ''}`)) ?? startModelCall(jsonField(a, 'tool_parameters', 'skill_name'));
      if (!act.identity && !act.name) {
        const skill = jsonField(a, 'tool_parameters', 'skill_name') ?? jsonField(a, 'tool_input', 'skill');
        if (skill) engine.setName(act, skill, 'exact');
      }
      const ms = num(a, 'duration_ms');
      const duration = ms === undefined ? undefined : ms / 1000;
      if (success) engine.finish(act, at, { result: 'ok', attrs: { 'agent.skill.load.duration': duration } }, ids);
      else engine.finish(act, at, { result: 'error', errorType: 'tool_error', errorStage: 'injection', attrs: { 'agent.skill.load.duration': duration } }, ids);
      return;
    }
    case 'api_request': {
      // Claude attributes API requests made while a skill is active with its real name
      const skill = str(a, 'skill.name');
      if (!skill || skill === REDACTED) return;
      const unnamed = [...engine.activations.values()].filter((x) => x.host === HOST && x.sessionId === session && x.turnId === turn && !x.name && !x.identity);
      if (unnamed.length === 1) engine.setName(unnamed[0], skill, 'derived');
      return;
    }
    default:
      return;
  }
}
