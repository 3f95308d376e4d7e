import assert from 'node:assert/strict';
import { evaluate, exposedDisabledSkills, mergeConfigs, rulesFrom, wildcardMatch } from './effective-permission.js';

const beta = [{ skillId: 'acme/kit:beta', name: 'beta' }];

describe('OpenCode permission evaluation (mirrors Permission.evaluate)', () => {
  it('matches wildcards like OpenCode', () => {
    assert.ok(wildcardMatch('beta', '*'));
    assert.ok(wildcardMatch('beta', 'b?ta'));
    assert.ok(wildcardMatch('internal-x', 'internal-*'));
    assert.ok(!wildcardMatch('beta', 'bet'));
    assert.ok(!wildcardMatch('a.b', 'a*c'));
  });

  it('the last matching rule wins and no match asks', () => {
    const rules = rulesFrom({ skill: { '*': 'allow', beta: 'deny' } });
    assert.equal(evaluate('skill', 'beta', rules), 'deny');
    assert.equal(evaluate('skill', 'alpha', rules), 'allow');
    assert.equal(evaluate('skill', 'x', []), 'ask');
    assert.equal(evaluate('skill', 'beta', rulesFrom({ skill: { beta: 'deny' }, '*': 'allow' })), 'allow', 'a later "*" permission key overrides');
  });

  it('Forge\'s deny holds for every agent unless a later rule re-allows it', () => {
    assert.deepEqual(exposedDisabledSkills({ permission: { skill: { '*': 'allow', beta: 'deny' } }, agent: { build: { model: 'x' } } }, beta, 'f'), []);
    const byAgent = exposedDisabledSkills({ permission: { skill: { beta: 'deny' } }, agent: { review: { permission: { skill: 'allow' } } } }, beta, 'f');
    assert.equal(byAgent.length, 1);
    assert.match(byAgent[0].message, /agent "review" "allow"/);
    const missing = exposedDisabledSkills({}, beta, 'f');
    assert.match(missing[0].message, /all agents "ask"/);
  });

  it('merges layered configs with later files overriding and keys keeping their first position', () => {
    const merged = mergeConfigs([{ permission: { skill: { '*': 'allow', beta: 'allow' } } }, { permission: { skill: { beta: 'deny' } } }]);
    assert.deepEqual(Object.keys((merged.permission as any).skill), ['*', 'beta']);
    assert.equal(evaluate('skill', 'beta', rulesFrom(merged.permission)), 'deny');
  });
});
