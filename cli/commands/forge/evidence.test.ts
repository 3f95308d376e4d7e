import assert from 'node:assert/strict';
import { installSandbox, type InstallSandbox } from '../../../test-support/skit-install.js';

describe('sf forge evidence from the local library', () => {
  let box: InstallSandbox;
  before(async () => (box = await installSandbox('sf-evidence-')));
  after(() => box.cleanup());

  it('reports the installed release, each contained skill with its content hash, and disabled children as not enabled', async () => {
    const add = await box.sf(['add', 'skit', box.source, '--agent', 'windsurf', '--yes']);
    assert.equal(add.code, 0, add.stderr);
    const dis = await box.sf(['skit', 'disable', 'acme/kit:lint']);
    assert.equal(dis.code, 0, dis.stderr);
    const [record] = await box.list();

    const r = await box.sf(['forge', 'evidence', '--scope', 'issue #42', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { fields, body } = JSON.parse(r.stdout);
    assert.deepEqual(fields.releases, [{ skit: 'acme/kit', version: record.bundleHash.slice(7, 19), bundleHash: record.bundleHash }]);
    const bySkill = Object.fromEntries(fields.skills.map((s: { skill: string }) => [s.skill, s]));
    for (const s of record.skills) assert.equal(bySkill[s.id].contentHash, s.hash);
    assert.equal(bySkill['acme/kit:lint'].enabled, 'no');
    assert.equal(bySkill['acme/kit:review'].enabled, 'yes');
    // no observations were given: active skills are "not recorded", never guessed from installs
    assert.equal(fields.active, null);
    assert.match(body, /<!-- FORGE:SKIT_EVIDENCE:COMPLETE -->\s*$/);

  });

  it('reports nothing installed for another project', async () => {
    const r = await box.sf(['forge', 'evidence', '--project', box.home, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).fields.releases, []);
  });
});
