import { strict as assert } from 'node:assert';
import { isSfError, type SfError } from '../../core/errors/index.js';
import { attribution } from '../projections/facts.js';
import { decodeCursor, encodeCursor } from './timeline.js';

describe('hub telemetry: honest attribution and strict query input', () => {
  it('evidence from a transcript or the filesystem, or itself inferred, never makes an exact attribution', () => {
    assert.deepEqual(attribution(['act_1'], 'exact', { source: 'transcript', fidelity: 'inferred' }), { fidelity: 'inferred', reported: 'exact' });
    assert.deepEqual(attribution(['act_1'], 'exact', { source: 'filesystem', fidelity: 'exact' }), { fidelity: 'inferred', reported: 'exact' });
    assert.deepEqual(attribution(['act_1', 'act_2'], 'exact', { source: 'native_otel', fidelity: 'inferred' }), { fidelity: 'inferred', reported: 'exact' });
    assert.deepEqual(attribution(['act_1'], 'exact', { source: 'native_otel', fidelity: 'exact' }), { fidelity: 'exact' });
    assert.deepEqual(attribution(['act_1', 'act_2'], 'exact', { source: 'native_hook', fidelity: 'exact' }), { fidelity: 'shared', reported: 'exact' });
  });

  it('a cursor this API did not give out, or gave out for another query, is a usage error, not the first page again', () => {
    const q = { accountId: 'u_1', repositoryId: 'repo_1', asked: { from: 0, to: 1786300700000 } };
    const good = encodeCursor(q, { timeMs: 1786300600000, eventId: 'evt_1' });
    assert.deepEqual(decodeCursor(q, good), { timeMs: 1786300600000, eventId: 'evt_1' });
    const unbound = Buffer.from(JSON.stringify([1786300600000, 'evt_1'])).toString('base64url');
    for (const bad of ['garbage', 'W1siYSJd', Buffer.from('[1,').toString('base64url'), Buffer.from('{"a":1}').toString('base64url'), unbound]) {
      assert.throws(() => decodeCursor(q, bad), (e) => isSfError(e, 'SF_E_USAGE') && /not one this API gave out/.test((e as Error).message), bad);
    }
    for (const other of [{ ...q, accountId: 'u_2' }, { ...q, repositoryId: 'repo_2' }, { ...q, asked: { from: 0 } }, { ...q, asked: { from: 1, to: q.asked.to } }, { ...q, asked: {} }]) {
      assert.throws(() => decodeCursor(other, good), (e) => isSfError(e, 'SF_E_USAGE') && /another query/.test((e as Error).message) && /same repository, from and to/.test((e as SfError).hint ?? ''), JSON.stringify(other));
    }
  });
});
