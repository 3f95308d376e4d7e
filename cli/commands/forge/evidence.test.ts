import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelopesToLogsRequest } from '../../../core/telemetry/envelope-otlp.js';
import { otlpJsonObject } from '../../../core/telemetry/otlp/encode.js';
import { fixturesDir, runSf, tempDir, writeTree } from '../../../test-support/index.js';
import { installSandbox, kitTree, type InstallSandbox } from '../../../test-support/skit-install.js';
import { initRepo } from '../../../test-support/git.js';

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

  it('refuses an unknown --agent and a --project that is not a directory, instead of reporting nothing installed (D9)', async () => {
    const bogus = await box.sf(['forge', 'evidence', '--agent', 'bogus']);
    assert.equal(bogus.code, 2, bogus.stdout);
    assert.match(bogus.stderr, /error\[SF_E_UNKNOWN_AGENT\]: unknown agent "bogus"/);
    assert.equal(bogus.stdout, '');
    const missing = await box.sf(['forge', 'evidence', '--project', join(box.root, 'nope'), '--json']);
    assert.equal(missing.code, 3, missing.stdout);
    assert.match(JSON.parse(missing.stderr).error.message, /--project .*nope does not exist/);
    const file = await box.sf(['forge', 'evidence', '--project', join(box.source, 'README.md')]);
    assert.equal(file.code, 2, file.stdout);
    // an agent alias names the same agent as its id
    const alias = await box.sf(['forge', 'evidence', '--agent', 'WINDSURF', '--json']);
    assert.equal(alias.code, 0, alias.stderr);
    assert.equal(JSON.parse(alias.stdout).fields.host, 'windsurf');
  });

  it('finds the project around a subdirectory or a symlinked --project, as install does, instead of reporting "None" (docs D3)', async () => {
    const project = join(box.root, 'repo');
    mkdirSync(join(project, 'src', 'deep'), { recursive: true });
    initRepo(project);
    const link = join(box.root, 'repo-link');
    symlinkSync(project, link);
    const other = join(box.root, 'other-kit');
    const tree = kitTree();
    await writeTree(other, { ...tree, 'README.md': tree['README.md'].replace('id: acme/kit', 'id: acme/other') });
    const add = await box.sf(['add', 'skit', other, '--agent', 'windsurf', '--scope', 'project', '--yes'], { cwd: project });
    assert.equal(add.code, 0, add.stderr);
    const releases = async (args: string[], cwd: string) => {
      const r = await box.sf(['forge', 'evidence', ...args, '--agent', 'windsurf', '--json'], { cwd });
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout).fields.releases.map((x: { skit: string }) => x.skit);
    };
    // acme/kit of the first test is installed in the sandbox's project, acme/other in this one
    const fromRoot = await releases([], project);
    assert.deepEqual(fromRoot, ['acme/other']);
    assert.deepEqual(await releases([], join(project, 'src', 'deep')), fromRoot);
    assert.deepEqual(await releases(['--project', link], box.root), fromRoot);
    assert.deepEqual(await releases(['--project', join(link, 'src')], box.root), fromRoot);
    assert.deepEqual(await releases(['--project', box.project], box.root), ['acme/kit']);
  });

  it('reports nothing installed for another project', async () => {
    const r = await box.sf(['forge', 'evidence', '--project', box.home, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).fields.releases, []);
  });
});

describe('sf forge evidence with observations from the observer file destination', () => {
  it('reports the skills that loaded, with fidelity and install match, and refuses a corrupt line with its number', async () => {
    const dir = await tempDir('sf-evidence-obs-');
    try {
      const events = JSON.parse(readFileSync(join(fixturesDir, 'host-otlp', 'claude-tool-details', 'normalized.json'), 'utf8')).events;
      const file = join(dir.path, 'observations.jsonl');
      writeFileSync(file, JSON.stringify(otlpJsonObject(envelopesToLogsRequest(events))) + '\n');
      const hash = events.find((e: { event_name: string }) => e.event_name === 'agent.skill.loaded').attributes['agent.skill.content.hash'];
      const data = join(dir.path, 'installed.json');
      writeFileSync(data, JSON.stringify({ installations: [{ skitId: 'acme/greetings', version: '1.2.0', bundleHash: `sha256:${'2'.repeat(64)}`, skills: [{ id: 'acme/greetings:hello-skill', contentHash: hash, enabled: true }, { id: 'acme/greetings:bye-skill', contentHash: `sha256:${'3'.repeat(64)}`, enabled: true }] }] }));

      const r = await runSf(['forge', 'evidence', '--data', data, '--observations', file, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const { fields } = JSON.parse(r.stdout);
      assert.deepEqual(fields.active, [{ skill: 'acme/greetings:hello-skill', contentHash: hash, fidelity: 'exact', source: 'native_otel', activations: 1, installMatch: 'yes' }]);

      writeFileSync(file, '{"resourceLogs": [oops\n', { flag: 'a' });
      const bad = await runSf(['forge', 'evidence', '--data', data, '--observations', file]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /line 2 of .*observations\.jsonl/);
    } finally {
      await dir.cleanup();
    }
  });
});
