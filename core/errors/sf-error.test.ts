import assert from 'node:assert/strict';
import { isSfError, SfError } from './sf-error.js';

describe('SfError identity (core/errors/sf-error)', () => {
  it('recognizes an SfError made by a second copy of the module (e.g. reached through a dynamic import under a loader)', async () => {
    // a query string makes the ES module loader evaluate the file again: a class of its own
    const copy = (await import(`./sf-error.js?copy=${Date.now()}`)) as typeof import('./sf-error.js');
    assert.notEqual(copy.SfError, SfError);
    const foreign = new copy.SfError('SF_E_NOT_FOUND', 'missing', { hint: 'look elsewhere' });
    assert.ok(foreign instanceof SfError);
    assert.ok(isSfError(foreign, 'SF_E_NOT_FOUND'));
    assert.ok(!isSfError(foreign, 'SF_E_IO'));
    assert.ok(copy.isSfError(new SfError('SF_E_IO', 'x')));
  });

  it('does not mistake other errors or look-alike objects for one', () => {
    assert.ok(!isSfError(new Error('plain')));
    assert.ok(!isSfError({ name: 'SfError', code: 'SF_E_IO', message: 'x' }));
    assert.ok(!isSfError(null));
    assert.ok(!(Object.assign(new Error('x'), { code: 'SF_E_IO' }) instanceof SfError));
  });

  it('serializes without its marker', () => {
    const e = new SfError('SF_E_IO', 'could not read', { location: { file: 'a.md' } });
    assert.deepEqual(JSON.parse(JSON.stringify(e)), { code: 'SF_E_IO', message: 'could not read', location: { file: 'a.md' } });
  });
});
