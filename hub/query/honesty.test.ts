import { strict as assert } from 'node:assert';
import { isSfError } from '../../core/errors/index.js';
import { attribution } from '../projections/facts.js';
import { decodeCursor } from './timeline.js';

describe('hub telemetry: honest attribution and strict query input', () => {
  it('evidence from a transcript or the filesystem, or itself inferred, never makes an exact attribution', () => {
    assert.deepEqual(attribution(['act_1'], 'exact', { source: 'transcript', fidelity: 'inferred' }), { fidelity: 'inferred', reported: 'exact' });
    assert.deepEqual(attribution(['act_1'], 'exact', { source: 'filesystem', fidelity: 'exact' }), { fidelity: 'inferred', reported: 'exact' });
    assert.deepEqual(attribution(['act_1', 'act_2'], 'exact', { source: 'native_otel', fidelity: 'inferred' }), { fidelity: 'inferred', reported: 'exact' });
    assert.deepEqual(attribution(['act_1'], 'exact', { source: 'native_otel', fidelity: 'exact' }), { fidelity: 'exact' });
    assert.deepEqual(attribution(['act_1', 'act_2'], 'exact', { source: 'native_hook', fidelity: 'exact' }), { fidelity: 'shared', reported: 'exact' });
  });

  it('a cursor this API did not give out is a usage error, not the first page again', () => {
    const good = Buffer.from(JSON.stringify([1786300600000, 'evt_1'])).toString('base64url');
    assert.deepEqual(decodeCursor(good), { timeMs: 1786300600000, eventId: 'evt_1' });
    for (const bad of ['garbage', 'W1siYSJd', Buffer.from('[1,').toString('base64url'), Buffer.from('{"a":1}').toString('base64url')]) {
      assert.throws(() => decodeCursor(bad), (e) => isSfError(e, 'SF_E_USAGE'), bad);
    }
  });
});
