import { skillName } from './engine.js';
import type { ObserverPluginEvent } from '../../../schemas/generated/observer-plugin-event.js';
import { isoToNanos } from '../time.js';
import { emitAction } from './actions.js';
import type { NormalizerEngine } from './engine.js';

/**
 * Events of the Forge OpenCode plugin (schemas/json/observer-plugin-event.schema.json) ->
 * agent.skill.*: skill.before -> selected, skill.after -> loaded (the directory it reports
 * resolves the skill exactly), skill.error -> load_failed, tool.after -> agent.action.completed
 * for the plugin-maintained active set (shared). OpenCode fires `before` even for calls a
 * permission rule denies, so a selection is settled only by its result (or the settle timeout).
 */

const HOST = 'opencode' as const;

const ERRORS = {
  permission_denied: { result: 'blocked', errorType: 'permission_denied', errorStage: 'permission' },
  not_found: { result: 'error', errorType: 'skill_not_found', errorStage: 'discovery' },
  error: { result: 'error', errorType: 'tool_error', errorStage: 'unknown' },
} as const;

/** Normalizes one validated plugin event. */
export function normalizePluginEvent(engine: NormalizerEngine, ev: ObserverPluginEvent): void {
  const at = isoToNanos(ev.time);
  const native = { 'service.name': 'opencode', ...(ev.host_version ? { 'service.version': ev.host_version } : {}) };
  const resource = engine.resourceFor(HOST, native, ev.session_id);
  const ids = [ev.call_id, ev.kind];
  if (ev.kind === 'tool.after') {
    if (!ev.tool) return;
    emitAction(engine, {
      host: HOST, sessionId: ev.session_id, turnId: ev.turn_id, tool: ev.tool, callId: ev.call_id, success: ev.success, approval: 'unknown',
      at, resource, evidence: 'plugin', attribution: () => 'shared', idParts: ids,
    });
    return;
  }
  const act = engine.start({
    key: `${HOST}|${ev.session_id}|${ev.call_id}`, host: HOST, sessionId: ev.session_id, turnId: ev.turn_id, name: ev.skill_name,
    hostScope: 'unknown', trigger: ev.trigger ?? 'implicit', selector: ev.trigger === 'explicit' ? 'user' : 'model',
    triggerSource: ev.trigger === 'explicit' ? 'user_command' : 'model_tool_call', evidence: 'plugin', at, resource, settleOnResult: true,
  });
  if (!act.name && skillName(ev.skill_name)) act.name = ev.skill_name;
  engine.emit(act, 'agent.skill.selected', { 'agent.skill.phase': 'selected' }, act.selectedAt, [ev.call_id, 'skill.before']);
  if (ev.kind === 'skill.after') {
    if (ev.skill_dir) engine.setDir(act, ev.skill_dir);
    engine.finish(act, at, {
      result: 'ok',
      attrs: {
        'agent.skill.instructions.truncated': ev.truncated,
        'agent.skill.instructions.truncation_reason': ev.truncated ? 'unknown' : undefined,
        'agent.skill.instructions.byte_count': ev.output_bytes,
      },
    }, ids);
  } else if (ev.kind === 'skill.error') {
    engine.finish(act, at, ERRORS[ev.error_kind ?? 'error'], ids);
  }
}
