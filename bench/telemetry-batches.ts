import type { OtlpAttributes, OtlpLogRecord, OtlpLogsRequest } from '../core/telemetry/otlp/index.js';
import { seededRandom } from './support.js';

/**
 * Realistic metadata-only agent-skill log batches for the telemetry benches: per activation a
 * selection, load start, load result, a few downstream actions, a change summary and now and
 * then an intervention — every record with a unique agent.skill.event.id, as an adapter emits.
 */

export interface BatchOptions {
  /** records per batch */
  size: number;
  batches: number;
  /** ms between consecutive activations (spreads events over time) */
  stepMs?: number;
  startMs?: number;
  sessions?: number;
  repositoryFingerprint?: string;
  seed?: number;
}

const SKILLS = ['owner/code-quality:maintainability', 'owner/code-quality:testing', 'acme/deploy:release', 'acme/deploy:rollback', 'tools/docs:writer'];
const ACTIONS = ['filesystem.read', 'filesystem.write', 'process.execute', 'git.commit'];

export function* logBatches(o: BatchOptions): Generator<OtlpLogsRequest> {
  const rnd = seededRandom(o.seed ?? 42);
  const step = o.stepMs ?? 50;
  let t = o.startMs ?? Date.UTC(2026, 7, 1);
  let n = 0;
  let activation = 0;
  for (let b = 0; b < o.batches; b++) {
    const records: OtlpLogRecord[] = [];
    while (records.length < o.size) {
      const act = `act_${o.seed ?? 42}_${activation++}`;
      const skill = SKILLS[Math.floor(rnd() * SKILLS.length)];
      const session = `sess_${Math.floor(rnd() * (o.sessions ?? 200))}`;
      const base: OtlpAttributes = {
        'agent.skill.schema.version': '1.0.0',
        'session.id': session,
        'agent.turn.id': `turn_${activation}`,
        'agent.host.name': 'claude_code',
        'agent.skill.package.id': skill.split(':')[0],
        'agent.skill.id': skill,
        'artifact.version': '2.3.0',
        'agent.skill.content.hash': 'sha256:9f2b5c0e4a7d1e8b3c6f0a9d2e5b8c1f4a7d0e3b6c9f2a5d8e1b4c7f0a3d6e9b',
        'agent.skill.evidence.source': 'native_otel',
        'agent.skill.evidence.fidelity': 'exact',
      };
      const emit = (eventName: string, attrs: OtlpAttributes) => {
        t += 1 + Math.floor(rnd() * step);
        const nanos = `${t}${String(Math.floor(rnd() * 1e6)).padStart(6, '0')}`;
        records.push({ timeUnixNano: nanos, observedTimeUnixNano: nanos, severityNumber: 9, eventName, attributes: { ...base, 'agent.skill.event.id': `evt_${o.seed ?? 42}_${n++}`, ...attrs } });
      };
      const trigger = rnd() < 0.6 ? 'implicit' : 'explicit';
      emit('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.trigger.type': trigger, 'agent.skill.trigger.source': 'frontmatter_description', 'agent.skill.phase': 'selected' });
      emit('agent.skill.load_started', { 'agent.skill.activation.id': act, 'agent.skill.phase': 'load_started', 'agent.skill.instructions.expected_file_count': 3 });
      if (rnd() < 0.05) emit('agent.skill.load_failed', { 'agent.skill.activation.id': act, 'agent.skill.phase': 'load_failed', 'error.type': 'file_missing', 'agent.skill.error.stage': 'read' });
      else emit('agent.skill.loaded', { 'agent.skill.activation.id': act, 'agent.skill.phase': 'loaded', 'agent.skill.result': 'ok', 'agent.skill.instructions.file_count': 3, 'agent.skill.instructions.byte_count': 18420, 'agent.skill.instructions.truncated': false });
      for (let i = 0, k = 1 + Math.floor(rnd() * 4); i < k; i++) {
        emit('agent.action.completed', {
          'agent.skill.activation.ids': [act],
          'agent.skill.attribution.fidelity': 'exact',
          'agent.action.type': ACTIONS[Math.floor(rnd() * ACTIONS.length)],
          'agent.action.mutating': rnd() < 0.5,
          'agent.action.scope': 'repository',
          'agent.action.risk': 'low',
          'agent.action.result': 'ok',
        });
      }
      emit('agent.change.summary', { 'agent.skill.activation.ids': [act], 'agent.change.boundary': 'turn', 'agent.change.file.modified.count': Math.floor(rnd() * 10), 'agent.change.line.added.count': Math.floor(rnd() * 300) });
      if (rnd() < 0.05) emit('agent.user.intervention', { 'agent.skill.activation.id': act, 'agent.user.intervention.type': 'correction', 'agent.skill.reason.code': 'scope_expansion' });
    }
    records.length = o.size;
    const resource: OtlpAttributes = { 'service.name': 'claude-code', 'service.version': '1.2.3', 'agent.adapter.name': 'sf-claude-adapter', 'agent.adapter.version': '0.1.0' };
    if (o.repositoryFingerprint) resource['forge.repository.fingerprint'] = o.repositoryFingerprint;
    yield { signal: 'logs', resources: [{ resource: { attributes: resource }, scopes: [{ scope: { name: 'sf-observer', version: '0.1.0' }, items: records }] }] };
  }
}
