import assert from 'node:assert/strict';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, tempDir, writeTree } from '../../../test-support/index.js';
import { skillMd } from '../../../test-support/skit-layout.js';

describe('sf skit validate', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => (dir = await tempDir('sf-cli-validate-')));
  afterEach(() => dir.cleanup());

  it('validates what `sf skit init` scaffolds: exit 0, no errors, no warnings', async () => {
    const root = join(dir.path, 'my-kit');
    const init = await runSf(['skit', 'init', root, '--id', 'acme/my-kit']);
    assert.equal(init.code, 0, init.stderr);
    const human = await runSf(['skit', 'validate', root]);
    assert.equal(human.code, 0, human.stdout + human.stderr);
    assert.equal(human.stdout, 'acme/my-kit (2 skills): valid, 0 errors, 0 warnings\n');
    const json = await runSf(['skit', 'validate', root, '--json']);
    assert.equal(json.code, 0);
    assert.deepEqual(JSON.parse(json.stdout), {
      ok: true,
      skit: {
        id: 'acme/my-kit',
        provisional: false,
        skills: [
          { name: 'review', id: 'acme/my-kit:review', path: 'skills/review', default_enabled: true },
          { name: 'summarize', id: 'acme/my-kit:summarize', path: 'skills/summarize', default_enabled: true },
        ],
      },
      diagnostics: [],
      summary: { errors: 0, warnings: 0 },
    });
  });

  it('defaults to the current directory', async () => {
    await runSf(['skit', 'init', dir.path]);
    const r = await runSf(['skit', 'validate'], { cwd: dir.path });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /valid, 0 errors, 0 warnings/);
  });

  it('exits 1 and lists located diagnostics with hints when the SKIT is invalid', async () => {
    const root = join(dir.path, 'kit');
    await runSf(['skit', 'init', root, '--id', 'acme/kit']);
    await writeTree(root, { 'skills/review/scripts/run.sh': { content: '#!/bin/sh\n', mode: 0o755 } });
    await writeFile(join(root, 'skills', 'summarize', 'SKILL.md'), skillMd('Summarize'));
    const human = await runSf(['skit', 'validate', root]);
    assert.equal(human.code, 1);
    assert.match(human.stdout, /^skills\/review\/scripts\/run\.sh {2}error {2}SKIT_EXECUTABLE_UNDECLARED {2}/m);
    assert.match(human.stdout, /^skills\/summarize\/SKILL\.md:2:1 {2}error {2}SKILL_NAME_NOT_LOWERCASE/m);
    assert.match(human.stdout, /hint: list the file under capabilities\.executables/);
    assert.match(human.stdout, /acme\/kit \(2 skills\): invalid, \d+ errors, 0 warnings\n$/);

    const json = await runSf(['skit', 'validate', root, '--json']);
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout) as { ok: boolean; diagnostics: Record<string, unknown>[]; summary: { errors: number } };
    assert.equal(report.ok, false);
    assert.equal(report.summary.errors, report.diagnostics.filter((d) => d.severity === 'error').length);
    const exec = report.diagnostics.find((d) => d.code === 'SKIT_EXECUTABLE_UNDECLARED');
    assert.deepEqual(Object.keys(exec ?? {}), ['code', 'severity', 'message', 'file', 'hint', 'errorCode']);
  });

  it('accepts a path to SKILL.md and validates a single skill with a provisional id', async () => {
    const root = join(dir.path, 'solo');
    await writeTree(root, { 'SKILL.md': skillMd('solo') });
    const r = await runSf(['skit', 'validate', join(root, 'SKILL.md'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { skit: { id: string; provisional: boolean; skills: { path: string }[] } };
    assert.match(report.skit.id, /^provisional\/[0-9a-f]{24}$/);
    assert.equal(report.skit.provisional, true);
    assert.equal(report.skit.skills[0].path, '');
  });

  it('reports a broken README descriptor with skit null in JSON', async () => {
    await writeFile(join(dir.path, 'README.md'), '---\nskit: 1\nid: [broken\n---\n');
    await appendFile(join(dir.path, 'notes.md'), 'x');
    const r = await runSf(['skit', 'validate', dir.path, '--json']);
    assert.equal(r.code, 1);
    const report = JSON.parse(r.stdout) as { skit: unknown; diagnostics: { code: string; file: string }[] };
    assert.equal(report.skit, null);
    assert.deepEqual(report.diagnostics.map((d) => [d.code, d.file]), [['SKIT_FRONTMATTER_YAML', 'README.md']]);
  });

  it('fails with exit 3 when the path does not exist', async () => {
    const r = await runSf(['skit', 'validate', join(dir.path, 'missing')]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /SF_E_NOT_FOUND/);
  });
});
