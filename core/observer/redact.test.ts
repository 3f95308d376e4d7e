import assert from 'node:assert/strict';
import { MASK, redactAttributes } from './redact.js';

describe('observer redaction (defence in depth, same rules as the collector config)', () => {
  it('removes secret-named keys and masks credential-looking values, keeping everything else', () => {
    const out = redactAttributes({
      'agent.skill.id': 'acme/x:y',
      'http.request.header.authorization': 'Bearer abc',
      'my.api_key': 'k',
      'error.type': 'failed with sk-abcdefghijklmnopqrstuvwxyz012345 in it',
      list: ['ghp_' + 'a'.repeat(36), 'fine'],
      n: 3,
    });
    assert.deepEqual(out, { 'agent.skill.id': 'acme/x:y', 'error.type': `failed with ${MASK} in it`, list: [MASK, 'fine'], n: 3 });
  });
});
