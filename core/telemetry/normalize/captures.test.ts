import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObservationEnvelope } from '../../../schemas/generated/observation-envelope.js';
import { observationEnvelopeSchema } from '../../../schemas/generated/observation-envelope.js';
import type { ObserverPluginEvent } from '../../../schemas/generated/observer-plugin-event.js';
import { checkSchema } from '../../skit/schemas.js';
import { fixturesDir } from '../../../test-support/index.js';
import {
  BUNDLE_HASH, CAPTURE_PROJECT, GREETINGS, HELLO_HASH, OPENCODE_PROJECT, captureLibrary, captureRequest, expectGoldenJson, fakeContext,
} from '../../../test-support/telemetry.js';
import type { OtlpLogsRequest, OtlpMetricsRequest } from '../otlp/types.js';
import { createNormalizer, type NormalizedOutput, type SessionInfo } from './index.js';

/** Golden tests: the real host captures in fixtures/host-otlp through the normalizer. */

const resolved = (cwd: string): SessionInfo => ({ cwd, repositoryResolved: true, fingerprints: { 'forge.repository.fingerprint': 'r'.repeat(64) } });

/** The session ids in a capture, all registered with cwd = the capture project. */
function sessionsOf(req: OtlpLogsRequest, cwd: string): Record<string, SessionInfo> {
  const out: Record<string, SessionInfo> = {};
  for (const r of req.resources) for (const s of r.scopes) for (const rec of s.items) {
    for (const k of ['session.id', 'conversation.id']) if (typeof rec.attributes[k] === 'string') out[rec.attributes[k] as string] = resolved(cwd);
  }
  return out;
}

/** What the Forge OpenCode plugin sends for each probe-plugin log line (metadata only). */
export function probeToPluginEvents(lines: string[]): ObserverPluginEvent[] {
  const out: ObserverPluginEvent[] = [];
  for (const line of lines) {
    const o = JSON.parse(line) as Record<string, any>;
    const base = { schema: 'forge/plugin-event/1' as const, host: 'opencode' as const, host_version: '1.18.33', time: o.t as string };
    if (o.hook === 'tool.execute.before' && o.input.tool === 'skill') out.push({ ...base, kind: 'skill.before', session_id: o.input.sessionID, call_id: o.input.callID, skill_name: o.args.name });
    if (o.hook === 'tool.execute.after' && o.input.tool === 'skill') {
      out.push({ ...base, kind: 'skill.after', session_id: o.input.sessionID, call_id: o.input.callID, skill_name: o.metadata.name, skill_dir: `/${o.metadata.dir}`, truncated: o.metadata.truncated });
    }
    const part = o.event?.properties?.part;
    if (o.hook === 'event' && part?.type === 'tool' && part.tool === 'skill' && part.state?.status === 'error') {
      const kind = /rule which prevents you/.test(part.state.error) ? 'permission_denied' : 'error';
      out.push({ ...base, kind: 'skill.error', session_id: part.sessionID, call_id: part.callID, skill_name: part.state.input?.name, error_kind: kind });
    }
  }
  return out;
}

function merge(into: NormalizedOutput, from: NormalizedOutput): void {
  into.events.push(...from.events);
  into.spans.push(...from.spans);
  into.metrics.push(...from.metrics);
}

async function runCapture(run: string, options: { content?: boolean } = {}): Promise<NormalizedOutput> {
  const out: NormalizedOutput = { events: [], spans: [], metrics: [] };
  if (run.startsWith('opencode')) {
    const lines = (await readFile(join(fixturesDir, 'host-otlp', run, 'plugin-hooks.jsonl'), 'utf8')).split('\n').filter(Boolean);
    const events = probeToPluginEvents(lines);
    const sessions = Object.fromEntries(events.map((e) => [e.session_id, resolved(`/${OPENCODE_PROJECT}`)]));
    const ctx = fakeContext(captureLibrary(), sessions, options);
    const n = createNormalizer(ctx);
    for (const e of events) merge(out, n.plugin(e));
    ctx.clock.t += 600_000_000_000n;
    merge(out, n.expire());
    return out;
  }
  const logs = (await captureRequest(run, 'logs')) as OtlpLogsRequest;
  const metrics = (await captureRequest(run, 'metrics')) as OtlpMetricsRequest;
  const ctx = fakeContext(captureLibrary(), sessionsOf(logs, `/${CAPTURE_PROJECT}`), options);
  const n = createNormalizer(ctx);
  // in every capture the host exported metrics before logs for Codex and logs first for Claude
  if (run.startsWith('codex')) merge(out, n.metrics(metrics));
  merge(out, n.logs(logs));
  if (!run.startsWith('codex')) merge(out, n.metrics(metrics));
  ctx.clock.t += 600_000_000_000n;
  merge(out, n.expire());
  return out;
}

const named = (out: NormalizedOutput, name: string) => out.events.filter((e) => e.event_name === name);
const attr = (e: ObservationEnvelope, k: string) => (e.attributes as Record<string, unknown>)[k];

function golden(out: NormalizedOutput) {
  return {
    events: out.events,
    spans: out.spans.map((s) => ({ name: s.span.name, traceId: s.span.traceId, spanId: s.span.spanId, status: s.span.status, attributes: s.span.attributes })),
    metrics: out.metrics.map((m) => ({ name: m.name, value: m.value })),
  };
}

const RUNS = ['claude-default', 'claude-tool-details', 'claude-user-skill', 'claude-slash', 'claude-override-off', 'codex-explicit', 'codex-implicit', 'codex-disabled-by-name', 'codex-disabled-by-path', 'opencode-skill-tool', 'opencode-permission-deny'];

describe('normalizer on real host captures', () => {
  for (const run of RUNS) {
    it(`${run}: matches fixtures/host-otlp/${run}/normalized.json, and every event fits the observation envelope`, async () => {
      const out = await runCapture(run);
      for (const e of out.events) assert.deepEqual(checkSchema(observationEnvelopeSchema, e), [], `${run} ${e.event_name}`);
      await expectGoldenJson(join(fixturesDir, 'host-otlp', run, 'normalized.json'), golden(out));
    });
  }

  it('Claude Code with tool details: selected -> load_started -> loaded of the exact library skill, implicit, exact', async () => {
    const out = await runCapture('claude-tool-details');
    assert.deepEqual(out.events.map((e) => e.event_name), ['agent.skill.selected', 'agent.skill.load_started', 'agent.skill.loaded']);
    for (const e of out.events) {
      assert.equal(attr(e, 'agent.skill.id'), `${GREETINGS}:hello-skill`);
      // the skill package and contained skill groups of the envelope: every event carries them
      assert.equal(attr(e, 'agent.skill.package.id'), GREETINGS);
      assert.equal(attr(e, 'agent.skill.content.hash'), HELLO_HASH);
      assert.equal(attr(e, 'agent.skill.evidence.source'), 'native_otel');
      assert.equal(attr(e, 'agent.skill.evidence.fidelity'), 'exact');
      assert.equal(attr(e, 'agent.skill.library.resolution'), 'name_and_scope');
      assert.equal(attr(e, 'agent.skill.trigger.type'), 'implicit');
      assert.equal(attr(e, 'session.id'), 'cc0fce32-f629-46aa-bab4-1eeb5519e738');
      assert.equal(attr(e, 'gen_ai.conversation.id'), undefined, 'never fabricated for Claude Code');
      assert.equal(e.resource['agent.host.name'], 'claude_code');
    }
    const loaded = named(out, 'agent.skill.loaded')[0];
    assert.equal(attr(loaded, 'artifact.version'), '1.2.0');
    assert.equal(attr(loaded, 'artifact.hash'), BUNDLE_HASH);
    assert.equal(attr(loaded, 'agent.skill.load.duration'), 0.024);
    const ids = new Set(out.events.map((e) => attr(e, 'agent.skill.activation.id')));
    assert.equal(ids.size, 1);
    const activations = out.spans.filter((s) => s.span.name !== 'agent_turn');
    assert.equal(activations.length, 1);
    assert.equal(activations[0].span.name, 'activate_skill hello-skill');
    assert.equal(out.events[0].trace_id, activations[0].span.traceId);
  });

  it('a host without trace context (Claude Code): one agent_turn span per turn, the parent of its activation spans', async () => {
    for (const run of ['claude-tool-details', 'claude-slash']) {
      const out = await runCapture(run);
      const turns = out.spans.filter((s) => s.span.name === 'agent_turn').map((s) => s.span);
      const activations = out.spans.filter((s) => s.span.name.startsWith('activate_skill')).map((s) => s.span);
      assert.equal(turns.length, 1, `${run}: one turn, one turn span`);
      assert.ok(activations.length >= 1, run);
      const [turn] = turns;
      for (const a of activations) {
        assert.equal(a.traceId, turn.traceId, run);
        assert.equal(a.parentSpanId, turn.spanId, `${run}: the activation hangs under the turn`);
        assert.ok(BigInt(turn.startTimeUnixNano) <= BigInt(a.startTimeUnixNano) && BigInt(a.endTimeUnixNano) <= BigInt(turn.endTimeUnixNano), `${run}: the turn covers its activations`);
      }
      assert.equal(turn.parentSpanId, undefined, 'a root: the host gave no trace');
      assert.equal(turn.kind, 1, 'internal');
      assert.equal(turn.attributes['agent.turn.id'], attr(out.events[0], 'agent.turn.id'));
      assert.equal(turn.attributes['session.id'], attr(out.events[0], 'session.id'));
      assert.equal(turn.attributes['gen_ai.operation.name'], undefined, 'never an invented provider operation');
      assert.equal(turn.attributes['gen_ai.conversation.id'], undefined, 'never fabricated for Claude Code');
    }
  });

  it('a host with its own trace (Codex): no agent_turn; the activation hangs under the host\'s span', async () => {
    const out = await runCapture('codex-explicit');
    assert.deepEqual(out.spans.map((s) => s.span.name), ['activate_skill hello-skill']);
  });

  it('Claude Code default (name redacted to custom_skill): named from the later api_request, fidelity derived', async () => {
    const out = await runCapture('claude-default');
    assert.deepEqual(out.events.map((e) => e.event_name), ['agent.skill.selected', 'agent.skill.load_started', 'agent.skill.loaded']);
    for (const e of out.events) {
      assert.equal(attr(e, 'agent.skill.id'), `${GREETINGS}:hello-skill`);
      assert.equal(attr(e, 'agent.skill.evidence.fidelity'), 'derived');
    }
  });

  it('Claude Code user skill resolves to the user-scope installation; a slash command is an explicit activation', async () => {
    const user = await runCapture('claude-user-skill');
    assert.equal(attr(named(user, 'agent.skill.loaded')[0], 'agent.skill.id'), `${GREETINGS}:hello-skill`);
    const slash = await runCapture('claude-slash');
    const selected = named(slash, 'agent.skill.selected');
    assert.deepEqual(selected.map((e) => attr(e, 'agent.skill.trigger.type')), ['explicit', 'implicit']);
    assert.deepEqual(selected.map((e) => attr(e, 'agent.skill.selector.type')), ['user', 'model']);
    assert.equal(named(slash, 'agent.skill.loaded').length, 2);
  });

  it('a disabled skill produces no activation at all (Claude skillOverrides off, Codex [[skills.config]])', async () => {
    for (const run of ['claude-override-off', 'codex-disabled-by-name', 'codex-disabled-by-path']) {
      const out = await runCapture(run);
      assert.deepEqual(out.events, [], run);
      assert.deepEqual(out.spans, [], run);
    }
  });

  it('Codex explicit: the host conversation id and trace context are kept; the load result comes from codex.skill.injected', async () => {
    const out = await runCapture('codex-explicit');
    assert.deepEqual(out.events.map((e) => e.event_name), ['agent.skill.selected', 'agent.skill.loaded']);
    const [sel, loaded] = out.events;
    assert.equal(attr(sel, 'gen_ai.conversation.id'), '01a22a79-4ce2-7811-a6d8-d7a6749bb675');
    assert.equal(attr(sel, 'agent.turn.id'), '01a22a79-4d0c-7ca0-be5e-71727e87c2ca');
    assert.equal(attr(sel, 'agent.skill.trigger.type'), 'explicit');
    assert.equal(attr(sel, 'agent.skill.evidence.fidelity'), 'exact');
    assert.equal(attr(loaded, 'agent.skill.evidence.fidelity'), 'derived');
    assert.equal(attr(loaded, 'agent.skill.id'), `${GREETINGS}:hello-skill`);
    assert.equal(sel.trace_id, '8dde12bb7adabcbf44d0c3d43446e960');
    assert.equal(out.spans[0].span.parentSpanId, 'a41d29b9a5a7f4db');
  });

  it('Codex implicit: the skill-file read becomes an action linked to the activation, attributed shared', async () => {
    const out = await runCapture('codex-implicit');
    const [action] = named(out, 'agent.action.completed');
    const [sel] = named(out, 'agent.skill.selected');
    assert.equal(attr(sel, 'agent.skill.trigger.type'), 'implicit');
    assert.deepEqual(attr(action, 'agent.skill.activation.ids'), [attr(sel, 'agent.skill.activation.id')]);
    assert.equal(attr(action, 'agent.action.type'), 'process.execute');
    assert.equal(attr(action, 'agent.action.approval.state'), 'not_required');
    assert.equal(attr(action, 'agent.skill.attribution.fidelity'), 'shared');
    assert.equal(attr(action, 'gen_ai.tool.name'), 'exec_command');
  });

  it('OpenCode plugin: exact-path resolution; a permission-denied call is selected then blocked', async () => {
    const ok = await runCapture('opencode-skill-tool');
    assert.deepEqual(ok.events.map((e) => e.event_name), ['agent.skill.selected', 'agent.skill.loaded']);
    for (const e of ok.events) {
      assert.equal(attr(e, 'agent.skill.library.resolution'), 'exact_path');
      assert.equal(attr(e, 'agent.skill.id'), `${GREETINGS}:hello-skill`);
      assert.equal(attr(e, 'agent.skill.evidence.source'), 'plugin');
    }
    const denied = await runCapture('opencode-permission-deny');
    assert.deepEqual(denied.events.map((e) => e.event_name), ['agent.skill.selected', 'agent.skill.load_failed']);
    assert.equal(attr(denied.events[1], 'agent.skill.result'), 'blocked');
    assert.equal(attr(denied.events[1], 'error.type'), 'permission_denied');
  });

  it('drops content (prompts, tool input/output, paths, user ids) unless the user opted in', async () => {
    const forbidden = ['$WORK', 'HELLO', 'cat .agents', 'skill_content', 'REDACTED', 'Launching', 'prevents you', '32b8c63ad0662924', 'user.id', 'prompt_length'];
    for (const run of RUNS) {
      const text = JSON.stringify(golden(await runCapture(run)));
      for (const f of forbidden) assert.ok(!text.includes(f), `${run} leaks ${f}`);
    }
    const optedIn = await runCapture('opencode-skill-tool', { content: true });
    assert.equal(attr(named(optedIn, 'agent.skill.loaded')[0], 'agent.skill.source.path'), `/${OPENCODE_PROJECT}/.opencode/skills/hello-skill`);
  });

  it('the sibling skill of the SKIT never shows an activation', async () => {
    for (const run of RUNS) {
      const text = JSON.stringify(golden(await runCapture(run)));
      assert.ok(!text.includes('bye-skill'), run);
    }
  });
});
