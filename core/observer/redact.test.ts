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

  it('keeps registry counts whose keys contain "token" and removes keys that name a token credential', () => {
    const counts = { 'agent.skill.instructions.token_count': 12, 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 20 };
    assert.deepEqual(redactAttributes(counts), counts);
    const credentials = { token: 'a', 'auth.token': 'b', github_token: 'c', 'http.request.header.x-auth-token': 'd', 'token.value': 'e', access_token: 'f', 'hub.device_token': 'g' };
    assert.deepEqual(redactAttributes({ ...credentials, kept: 1 }), { kept: 1 });
  });
});
