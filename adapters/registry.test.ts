import assert from 'node:assert/strict';
import { allAdapters } from './index.js';

describe('adapter registry order', () => {
  it('lists agents sorted by id, the same order localeCompare gives (ids are [a-z0-9-])', () => {
    const ids = allAdapters().map((a) => a.id);
    for (const id of ids) assert.match(id, /^[a-z0-9]+(-[a-z0-9]+)*$/);
    assert.deepEqual(ids, [...ids].sort((a, b) => a.localeCompare(b, 'en')));
    assert.deepEqual(ids, [...ids].sort((a, b) => a.localeCompare(b)));
  });
});
