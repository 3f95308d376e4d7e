import assert from 'node:assert/strict';
import { captureLibrary, captureRequest, fakeContext } from '../../../test-support/telemetry.js';
import type { OtlpLogRecord, OtlpLogsRequest, OtlpMetricsRequest, OtlpSpan, OtlpTracesRequest } from '../otlp/types.js';
import { createNormalizer } from './index.js';

/**
 * The metadata-only default (docs/observe.md: never file paths, repository commits, error messages, tool
 * arguments): inputs from a privacy audit that leaked through to every destination.
 */
const SESSION = 'cc0fce32-f629-46aa-bab4-1eeb5519e738';
const LEAK = /LEAK|\/home\/alice|hunter2/;

const logs = (records: OtlpLogRecord[], service = 'x'): OtlpLogsRequest => ({ signal: 'logs', resources: [{ resource: { attributes: { 'service.name': service } }, scopes: [{ scope: { name: 'x' }, items: records }] }] });

describe('observer privacy: metadata only unless content is on', () => {
  it('a pass-through catalog event loses its opt-in attributes (paths, commits, branch, repository) and a free-text error.type', () => {
    const record: OtlpLogRecord = {
      timeUnixNano: '1796000000000000000', observedTimeUnixNano: '1796000000000000000', eventName: 'agent.skill.loaded',
      attributes: {
        'agent.skill.event.id': 'evt_min_1', 'agent.skill.activation.id': 'act_min', 'agent.skill.evidence.fidelity': 'exact', 'agent.skill.evidence.source': 'native_otel', 'agent.skill.id': 's',
        'agent.skill.source.path': '/home/alice/LEAK_PATH', 'vcs.ref.head.revision': 'LEAKCOMMIT', 'vcs.repository.name': 'LEAK_REPO', 'vcs.ref.head.name': 'LEAK_BRANCH',
        'error.type': 'LEAK_ERRMSG: cannot open /home/alice/x',
      },
    };
    const off = createNormalizer(fakeContext(captureLibrary())).logs(logs([record]));
    assert.equal(off.events.length, 1);
    assert.doesNotMatch(JSON.stringify(off.events), LEAK);
    assert.equal(off.events[0].attributes['error.type'], '_OTHER');
    const on = createNormalizer(fakeContext(captureLibrary(), {}, { content: true })).logs(logs([record]));
    assert.equal(on.events[0].attributes['agent.skill.source.path'], '/home/alice/LEAK_PATH', 'the opt-in still works');
  });

  it('an exported tool span keeps no command line in its name, no status message, trace state or nested values', async () => {
    const n = createNormalizer(fakeContext(captureLibrary(), { [SESSION]: { cwd: '/$WORK/proj', repositoryResolved: true, fingerprints: {} } }));
    n.logs((await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest);
    const span: OtlpSpan = {
      traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceState: 'k=LEAK_STATE', name: 'execute_tool Bash: cat /home/alice/LEAK_NAME', kind: 1,
      startTimeUnixNano: '1796000000000000000', endTimeUnixNano: '1796000000100000000',
      attributes: {
        'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'Bash', 'session.id': SESSION, 'error.type': 'LEAK_ERR full message',
        'mcp.method.name': { a: 'LEAK_KVLIST' }, 'gen_ai.request.model': ['LEAK_ARRAY'],
      },
      events: [{ timeUnixNano: '1796000000000000001', name: 'LEAK_EVENT', attributes: {} }],
      links: [{ traceId: '0af7651916cd43dd8448eb211c80319d', spanId: 'b7ad6b7169203332', traceState: 'leak=LEAK_LINKSTATE', attributes: {} }],
      status: { code: 2, message: 'LEAK_STATUS: ENOENT /home/alice/secret' },
    };
    const out = n.traces({ signal: 'traces', resources: [{ resource: { attributes: { 'service.name': 'claude-code' } }, scopes: [{ scope: { name: 'claude' }, items: [span] }] }] } as OtlpTracesRequest);
    assert.equal(out.spans.length, 1);
    const s = out.spans[0].span;
    assert.doesNotMatch(JSON.stringify(s), LEAK);
    assert.equal(s.name, 'execute_tool Bash');
    assert.deepEqual(s.status, { code: 2 });
    assert.equal(s.attributes['error.type'], '_OTHER');
  });

  it('a free-text host tool name (a command line) is kept neither on the tool span nor on agent.action.completed', async () => {
    const n = createNormalizer(fakeContext(captureLibrary(), { [SESSION]: { cwd: '/$WORK/proj', repositoryResolved: true, fingerprints: {} } }));
    const req = (await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest;
    const items = req.resources[0].scopes[0].items;
    const result = items.find((r) => r.attributes['event.name'] === 'tool_result')!;
    items.push({ ...result, attributes: { ...result.attributes, tool_name: 'cat /home/alice/LEAK_TOOL', tool_use_id: 'toolu_leak_1' } });
    const out = n.logs(req);
    const actions = out.events.filter((e) => e.event_name === 'agent.action.completed');
    assert.equal(actions.length, 1, 'the tool call is still an action');
    assert.doesNotMatch(JSON.stringify(actions), LEAK);
    const span: OtlpSpan = {
      traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', name: 'execute_tool', kind: 1, startTimeUnixNano: '1796000000000000000', endTimeUnixNano: '1796000000100000000',
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'Read LEAK_TOOLNAME /home/alice/x', 'session.id': SESSION }, events: [], links: [],
    };
    const traced = n.traces({ signal: 'traces', resources: [{ resource: { attributes: { 'service.name': 'claude-code' } }, scopes: [{ scope: { name: 'claude' }, items: [span] }] }] } as OtlpTracesRequest);
    assert.equal(traced.spans.length, 1);
    assert.equal(traced.spans[0].span.name, 'execute_tool');
    assert.doesNotMatch(JSON.stringify(traced.spans[0].span), LEAK);
  });

  it('a Skill tool argument that is not a skill name is not exported as one', async () => {
    const req = (await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest;
    const text = JSON.stringify(req).replace(/\\"skill_name\\":\\"[^\\"]*\\"/g, '\\"skill_name\\":\\"/home/alice/LEAK fix the payroll bug, password hunter2\\"');
    const out = createNormalizer(fakeContext(captureLibrary())).logs(JSON.parse(text) as OtlpLogsRequest);
    assert.ok(out.events.length > 0);
    assert.doesNotMatch(JSON.stringify(out.events), LEAK);
  });

  it('a Codex counter of 30 million is no 30 million loop or 30 million credits in memory', () => {
    const metrics: OtlpMetricsRequest = {
      signal: 'metrics',
      resources: [{ resource: { attributes: { 'service.name': 'codex_cli_rs' } }, scopes: [{ scope: { name: 'codex' }, items: [{
        name: 'codex.skill.injected', data: { kind: 'sum', aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ attributes: { skill: 'review', status: 'ok', invoke_type: 'explicit' }, timeUnixNano: '1796000000000000000', asInt: '30000000' }] },
      }] }] }],
    };
    const started = process.hrtime.bigint();
    createNormalizer(fakeContext(captureLibrary())).metrics(metrics);
    // a loop per unit of the counter took 15 s and 3 GB
    assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 2000);
  });
});
