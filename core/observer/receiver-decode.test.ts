import assert from 'node:assert/strict';
import { field, nestedArrays, stringField } from '../../test-support/protobuf-wire.js';
import { DEFAULT_OTLP_LIMITS } from '../telemetry/otlp/limits.js';
import type { OtlpLogsRequest, OtlpRequest } from '../telemetry/otlp/index.js';
import { startReceiver, type Receiver } from './receiver.js';

describe('observer receiver: hostile protobuf from a local host costs the bad value, not the batch', () => {
  let receiver: Receiver;
  const received: OtlpRequest[] = [];
  before(async () => {
    const handlers = { otlp: async (r: OtlpRequest) => void received.push(r), pluginEvents: async () => ({ accepted: 0, rejected: 0 }), messages: async (items: unknown[]) => items, health: () => ({ ok: true }) };
    receiver = await startReceiver(0, handlers, DEFAULT_OTLP_LIMITS, '127.0.0.1');
  });
  after(() => receiver.close());

  it('takes a batch with an attribute nested 100,000 levels and invalid UTF-8, keeping every record', async () => {
    const attribute = (key: string, value: Buffer) => field(6, 2, Buffer.concat([stringField(1, key), field(2, 2, value)]));
    const records = [
      Buffer.concat([stringField(12, 'deep'), attribute('x.deep', nestedArrays(100_000, stringField(1, 'leaf')))]),
      Buffer.concat([stringField(12, 'bad utf-8'), attribute('name', stringField(1, Buffer.from([0x61, 0xff])))]),
      stringField(12, 'sibling'),
    ];
    const body = field(1, 2, field(2, 2, Buffer.concat(records.map((r) => field(2, 2, r)))));
    const res = await fetch(`${receiver.url}/v1/logs`, { method: 'POST', body: body as BodyInit, headers: { 'content-type': 'application/x-protobuf' } });
    assert.equal(res.status, 200);
    await new Promise((r) => setImmediate(r));
    const [req] = received as OtlpLogsRequest[];
    const items = req.resources[0].scopes[0].items;
    assert.deepEqual(items.map((r) => r.eventName), ['deep', 'bad utf-8', 'sibling']);
    assert.equal(items[0].droppedAttributesCount, 1);
    assert.equal(items[1].attributes.name, 'a\ufffd');
  });
});
