import assert from 'node:assert/strict';
import { BLOCKED_VALUE_PATTERNS, MASK, redactAttributes, redactSpanName, redactText } from './redact.js';

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

describe('observer redaction keeps skill identity (kebab-case names are not credentials)', () => {
  const KEY = 'sk-proj-' + 'A1b2C3d4'.repeat(4);
  const GHP = 'ghp_' + 'x'.repeat(36);
  const AKIA = 'AKIAIOSFODNN7EXAMPLE';
  const BEARER = 'Bearer ' + 'q9'.repeat(12);

  it('does not mask `sk-` inside a kebab-case name in any value, confirmed or not', () => {
    const attrs = {
      'agent.skill.id': 'not_installed:risk-assessment-checklist-for-production',
      'agent.skill.name': 'risk-assessment-checklist-for-production',
      'error.type': 'task-automation-helpers-failed-on-disk-quota',
    };
    assert.deepEqual(redactAttributes(attrs), attrs);
    assert.equal(redactText('activate_skill risk-assessment-checklist'), 'activate_skill risk-assessment-checklist');
  });

  it('never masks the identity of a skill the library confirmed, even one that starts like a key', () => {
    const attrs = {
      'agent.skill.package.id': 'acme/sk-learn-pipelines-for-the-team',
      'agent.skill.id': 'acme/sk-learn-pipelines-for-the-team:sk-learn-model-selection-helpers',
      'agent.skill.name': 'sk-learn-model-selection-helpers',
      'agent.skill.activation.id': 'act_0123456789abcdef',
      'agent.skill.content.hash': 'sha256:' + 'ab'.repeat(32),
    };
    assert.deepEqual(redactAttributes(attrs), attrs);
    assert.equal(redactSpanName('activate_skill sk-learn-model-selection-helpers', attrs), 'activate_skill sk-learn-model-selection-helpers');
  });

  it('masks real credentials in free values, keeping the text around them', () => {
    const out = redactAttributes({
      'agent.skill.package.id': 'acme/x',
      'error.type': `key ${KEY} token=${GHP} aws ${AKIA} header Authorization: ${BEARER} end`,
      list: [KEY, `(${GHP})`],
    });
    assert.equal(out['error.type'], `key ${MASK} token=${MASK} aws ${MASK} header Authorization: ${MASK} end`);
    assert.deepEqual(out.list, [MASK, `(${MASK})`]);
  });

  it('masks a credential-looking name the library did not confirm (a model-written Skill argument)', () => {
    const out = redactAttributes({ 'agent.skill.id': `not_installed:${KEY}`, 'agent.skill.name': KEY });
    assert.deepEqual(out, { 'agent.skill.id': `not_installed:${MASK}`, 'agent.skill.name': MASK });
    assert.equal(redactSpanName(`activate_skill ${KEY}`, { 'agent.skill.name': KEY }), `activate_skill ${MASK}`);
  });

  it('gives the collector RE2 patterns (no lookbehind) that match the same credentials and no kebab-case name', () => {
    for (const p of BLOCKED_VALUE_PATTERNS) assert.ok(!p.includes('(?<'), `RE2 has no lookbehind: ${p}`);
    // RE2 and JS agree on these constructs; the collector masks the boundary character with the token
    const re2 = new RegExp(BLOCKED_VALUE_PATTERNS.join('|'), 'g');
    assert.equal('acme/task-automation-helpers:risk-assessment-checklist'.replace(re2, MASK), 'acme/task-automation-helpers:risk-assessment-checklist');
    assert.equal(`${KEY}|${GHP}|${AKIA}|x ${BEARER}`.replace(re2, MASK), `${MASK}${MASK}${MASK}|x${MASK}`);
  });
});
