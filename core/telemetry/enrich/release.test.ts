import assert from 'node:assert/strict';
import type { InstallationRecord, InventoryEvent } from '../../library/types.js';
import { GREETINGS, HELLO_HASH, captureLibrary, fakeContext, greetingsInstall } from '../../../test-support/telemetry.js';
import { createNormalizer } from '../normalize/index.js';
import { identityOf } from './identity.js';
import { buildSkillIndex, resolveSkill } from './skill-index.js';

/**
 * artifact.version names the release that ran: two commits of one git branch are two releases,
 * and a source without version or commit (a local directory) has none: the bundle hash in
 * artifact.hash identifies it. Activations (skill index) and inventory events say the same.
 */

const COMMIT = '2356d3aba0d6' + 'f'.repeat(28);
const GIT = { ref: 'main', commit: COMMIT };

const installWith = (release: InstallationRecord['release']): InstallationRecord => ({
  ...greetingsInstall('user', undefined, [{ agent: 'claude-code', skillRoot: '/home/me/.claude/skills' }]), release,
});

const activationVersion = (release: InstallationRecord['release']) => {
  const index = buildSkillIndex([installWith(release)]);
  return identityOf(resolveSkill(index, { agent: 'claude-code', name: 'hello-skill', hostScope: 'user' }), 'hello-skill')['artifact.version'];
};

const inventoryVersion = (release: InventoryEvent['release']) => {
  const n = createNormalizer(fakeContext(captureLibrary()));
  const [ev] = n.inventory({
    schema: 'forge/inventory-event/1', event_id: 'ev-1', event_name: 'agent.skill.inventory.changed', timestamp: '2026-11-30T03:30:00.000Z',
    skit_id: GREETINGS, release, bundle_hash: 'sha256:' + '9'.repeat(64), action: 'installed', agent: 'claude-code', scope: 'user',
    actor_type: 'user', installer_version: '0.1.0', skills: [{ id: `${GREETINGS}:hello-skill`, content_hash: HELLO_HASH, enabled: true }],
  }).events;
  return ev.attributes;
};

describe('artifact.version of a release (activations and inventory alike)', () => {
  it('a git release is ref@commit as the CLI labels it, not the branch name', () => {
    assert.equal(activationVersion(GIT), 'main@2356d3aba0d6');
    assert.equal(inventoryVersion(GIT)['artifact.version'], 'main@2356d3aba0d6');
    assert.notEqual(activationVersion({ ref: 'main', commit: 'a'.repeat(40) }), activationVersion(GIT), 'two commits of main are two releases');
  });

  it('a hub release is its version', () => {
    assert.equal(activationVersion({ version: '1.2.0' }), '1.2.0');
    assert.equal(inventoryVersion({ version: '1.2.0' })['artifact.version'], '1.2.0');
  });

  it('a local source has no version: artifact.version is left out, the bundle hash identifies it', () => {
    const identity = identityOf(resolveSkill(buildSkillIndex([installWith({})]), { agent: 'claude-code', name: 'hello-skill', hostScope: 'user' }), 'hello-skill');
    assert.ok(!('artifact.version' in identity));
    assert.equal(identity['artifact.hash'], 'sha256:' + '9'.repeat(64));
    const attrs = inventoryVersion({});
    assert.ok(!('artifact.version' in attrs), JSON.stringify(attrs));
    assert.equal(attrs['artifact.hash'], 'sha256:' + '9'.repeat(64));
  });
});
