import assert from 'node:assert/strict';
import { BUNDLE_HASH, GREETINGS, HELLO_HASH, greetingsInstall } from '../../../test-support/telemetry.js';
import { identityOf } from './identity.js';
import { buildSkillIndex, resolveSkill } from './skill-index.js';

const index = buildSkillIndex([
  greetingsInstall('project', '/repos/a', [{ agent: 'claude-code', skillRoot: '/repos/a/.claude/skills' }]),
  greetingsInstall('project', '/repos/b', [{ agent: 'claude-code', skillRoot: '/repos/b/.claude/skills' }, { agent: 'opencode', skillRoot: '/repos/b/.opencode/skills' }]),
  greetingsInstall('user', undefined, [{ agent: 'claude-code', skillRoot: '/home/me/.claude/skills' }]),
]);

describe('library resolution of host skills', () => {
  it('resolves a project skill by name, host scope and the registered cwd', () => {
    const r = resolveSkill(index, { agent: 'claude-code', name: 'hello-skill', hostScope: 'project', cwd: '/repos/b/src' });
    assert.equal(r.resolution, 'name_and_scope');
    assert.equal(r.entry?.projectRoot, '/repos/b');
    assert.deepEqual(identityOf(r, 'hello-skill'), {
      'agent.skill.id': `${GREETINGS}:hello-skill`, 'agent.skill.name': 'hello-skill', 'agent.skill.package.id': GREETINGS, 'agent.skill.content.hash': HELLO_HASH,
      'agent.skill.source.type': 'forge', 'agent.skill.source.ref': '1.2.0', 'artifact.version': '1.2.0', 'artifact.hash': BUNDLE_HASH, 'agent.skill.library.resolution': 'name_and_scope',
    });
  });

  it('labels instead of guessing: no cwd for a project skill, or several candidates, is ambiguous', () => {
    assert.equal(resolveSkill(index, { agent: 'claude-code', name: 'hello-skill', hostScope: 'project' }).resolution, 'ambiguous');
    // unknown scope inside project b: the user install and project b's both match
    const r = resolveSkill(index, { agent: 'claude-code', name: 'hello-skill', hostScope: 'unknown', cwd: '/repos/b' });
    assert.equal(r.resolution, 'ambiguous');
    assert.equal(r.entry, undefined);
    assert.deepEqual(identityOf(r, 'hello-skill'), { 'agent.skill.id': 'ambiguous:hello-skill', 'agent.skill.name': 'hello-skill', 'agent.skill.library.resolution': 'ambiguous' });
  });

  it('user scope, exact directories, unmanaged and redacted skills', () => {
    assert.equal(resolveSkill(index, { agent: 'claude-code', name: 'hello-skill', hostScope: 'user', cwd: '/elsewhere' }).entry?.scope, 'user');
    const exact = resolveSkill(index, { agent: 'opencode', name: 'hello-skill', dir: '/repos/b/.opencode/skills/hello-skill', hostScope: 'unknown' });
    assert.equal(exact.resolution, 'exact_path');
    // OpenCode also reads Claude's skill roots: a directory Forge projected for Claude Code resolves too
    assert.equal(resolveSkill(index, { agent: 'opencode', name: 'hello-skill', dir: '/repos/a/.claude/skills/hello-skill', hostScope: 'unknown' }).resolution, 'exact_path');
    assert.equal(resolveSkill(index, { agent: 'opencode', name: 'hello-skill', dir: '/repos/c/.opencode/skills/hello-skill', hostScope: 'unknown' }).resolution, 'not_installed');
    assert.equal(resolveSkill(index, { agent: 'claude-code', name: 'other', hostScope: 'project', cwd: '/repos/a' }).resolution, 'not_installed');
    assert.equal(resolveSkill(index, { agent: 'claude-code', hostScope: 'project', cwd: '/repos/a' }).resolution, 'name_redacted');
    assert.equal(resolveSkill(index, { agent: 'claude-code', name: 'hello-skill', hostScope: 'other', cwd: '/repos/a' }).resolution, 'not_installed');
    assert.equal(resolveSkill(index, { agent: 'claude-code', name: 'hello-skill', hostScope: 'project', cwd: '/repos/ab' }).resolution, 'not_installed');
  });
});
