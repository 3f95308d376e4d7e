import assert from 'node:assert/strict';
import type { ObservationEventRow } from '../../../projections/rows.js';
import { decodeEventHead, decodeEventRow, encodeEventRow, encodeEventRows } from './event-codec.js';

const base: ObservationEventRow = {
  eventId: 'evt_1',
  dedupBasis: 'event_id',
  eventName: 'agent.skill.loaded',
  signal: 'logs',
  time: '2026-08-09T18:42:10.000000001Z',
  timeSource: 'source',
  accountId: 'u_0e7c0d7e-8a4b-4b6f-9f57-3a8a5e1b2c3d',
  deviceId: 'dev_abc',
  repositoryResolution: 'repo_unresolved',
  attributes: {},
  rawBatchId: 'rb_00',
  normalizerVersion: '1.0.0',
};

const roundTrip = (row: ObservationEventRow) => decodeEventRow(encodeEventRow(row));

describe('hub event row encoding (layout 2)', () => {
  it('round-trips every typed field, activation ids, attributes and a body', () => {
    const row: ObservationEventRow = {
      ...base,
      observedTime: '2026-08-09T18:42:11.000000000Z',
      repositoryId: 'repo_1',
      repositoryResolution: 'resolved',
      sessionId: 'sess_1',
      turnId: 'turn_1',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      parentSpanId: '00f067aa0ba902b7',
      spanName: 'activate_skill deploy',
      serviceName: 'claude-code',
      hostName: 'claude_code',
      hostVersion: '2.1',
      adapterName: 'sf-claude-adapter',
      adapterVersion: '0.1.0',
      conversationId: 'conv_1',
      agentName: 'main',
      model: 'model-x',
      packageId: 'acme/deploy',
      skillId: 'acme/deploy:release',
      skillName: 'release',
      artifactVersion: '2.3.0',
      artifactHash: 'sha256:aa',
      contentHash: 'sha256:bb',
      activationId: 'act_1',
      activationIds: ['act_1', 'act_2'],
      phase: 'loaded',
      result: 'ok',
      triggerType: 'explicit',
      reasonCode: 'user_request',
      errorType: 'file_missing',
      evidenceSource: 'native_otel',
      evidenceFidelity: 'exact',
      schemaUrl: 'https://opentelemetry.io/schemas/1.30.0',
      attributes: {
        'agent.action.mutating': false,
        'agent.change.line.added.count': 300,
        'agent.skill.load.duration': 0.25,
        'big.count': 2 ** 40,
        'negative.count': -7,
        'empty.value': null,
        'list.value': ['a', 1, true, null, ['nested']],
        'map.value': { inner: { deeper: 'x' }, n: 1.5 },
      },
      body: { prompt: 'only with content collection', parts: ['a', 'b'] },
    };
    assert.deepStrictEqual(roundTrip(row), row);
  });

  it('keeps non-ASCII, long and unusual strings and numbers exactly', () => {
    const long = 'x'.repeat(5000);
    const row: ObservationEventRow = {
      ...base,
      skillName: 'déploiement — 配置 🚀',
      spanName: long,
      attributes: { 'ключ': 'значение', long, 'emoji 🚀': '🚀'.repeat(100), nan: Number.NaN, inf: Number.POSITIVE_INFINITY, negZero: -0, tiny: 5e-324 },
    };
    const back = roundTrip(row);
    assert.deepStrictEqual(back, row);
    assert.ok(Object.is(back.attributes.negZero, -0));
  });

  it('keeps an attribute named __proto__ as data', () => {
    const attributes = JSON.parse('{"__proto__": "x", "a": 1}') as ObservationEventRow['attributes'];
    const back = roundTrip({ ...base, attributes });
    assert.equal(Object.getPrototypeOf(back.attributes), Object.prototype);
    assert.deepStrictEqual(Object.keys(back.attributes), ['__proto__', 'a']);
    assert.equal((back.attributes as Record<string, unknown>)['__proto__'], 'x');
  });

  it('stores a row whose string field holds something else as JSON instead of dropping it', () => {
    const odd = { ...base, sessionId: 42 } as unknown as ObservationEventRow;
    assert.deepStrictEqual(roundTrip(odd), odd);
  });

  it('encodes many rows back to back, each decodable on its own', () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({ ...base, eventId: `evt_${i}`, attributes: { i, s: 'é'.repeat(i % 3) } }));
    const { values, ends } = encodeEventRows(rows);
    assert.equal(ends.length, rows.length);
    rows.forEach((row, i) => assert.deepStrictEqual(decodeEventRow(values.subarray(i === 0 ? 0 : ends[i - 1], ends[i])), row));
  });

  it('decodes the head of a row alone: ids (the device too: activations are per device), name, time, phase and activation links', () => {
    const row: ObservationEventRow = { ...base, repositoryId: 'repo_1', skillId: 'acme/deploy:release', activationIds: ['act_1', 'act_2'], phase: 'loaded', sessionId: 'sess_1', attributes: { a: 'é' } };
    const head = decodeEventHead(encodeEventRow(row));
    const { eventId, eventName, time, accountId, deviceId, repositoryId, skillId, activationIds, phase } = row;
    assert.deepStrictEqual(JSON.parse(JSON.stringify(head)), { eventId, eventName, time, accountId, deviceId, repositoryId, skillId, activationIds, phase });
    assert.equal(decodeEventHead(encodeEventRow(row), (name) => name !== 'agent.skill.loaded'), undefined, 'an unwanted name stops the decoding');
    assert.equal(decodeEventHead(encodeEventRow(row), (name) => name === 'agent.skill.loaded')?.skillId, 'acme/deploy:release');
  });

  it('refuses bytes that are not an encoded row', () => {
    assert.throws(() => decodeEventRow(new Uint8Array([0x7f, 0, 0])), /corrupt event row/);
  });
});
