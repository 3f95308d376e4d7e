import { strict as assert } from 'node:assert';
import { mkdir, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTree } from '../../../test-support/index.js';
import { installSandbox, kitTree, rootContents, type InstallSandbox } from '../../../test-support/skit-install.js';

interface Report {
  clean: boolean;
  findings: { code: string; severity: string; agent?: string; fixed?: boolean; message: string; hint?: string }[];
}

/**
 * Skill roots that are one directory through a symbolic link (`.agents/skills -> ../.claude/skills`,
 * so every host reads one directory) are one shared root, exactly like roots shared by name.
 */
describe('sf skit: skill roots that are one directory through a symbolic link', () => {
  let sb: InstallSandbox;
  let claude: string;
  const doctor = async (...args: string[]) => {
    const r = await sb.sf(['skit', 'doctor', '--json', ...args]);
    return { code: r.code, report: JSON.parse(r.stdout) as Report };
  };
  const codes = (report: Report) => report.findings.map((f) => `${f.code}${f.agent ? ` ${f.agent}` : ''}${f.fixed ? ' fixed' : ''}`).sort();

  beforeEach(async () => {
    sb = await installSandbox('sf-aliasroot-');
    claude = join(sb.project, '.claude', 'skills');
    await mkdir(claude, { recursive: true });
    await mkdir(join(sb.project, '.agents'));
    await symlink('../.claude/skills', join(sb.project, '.agents', 'skills'));
  });
  afterEach(() => sb.cleanup());

  const install = async () => {
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code,cursor', '--yes']);
    assert.equal(r.code, 0, r.stderr);
  };

  it('removing one agent keeps the skills another agent still uses in that directory', async () => {
    await install();
    const r = await sb.sf(['skit', 'remove', 'acme/kit', '--agent', 'cursor']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(Object.keys(await rootContents(claude)), ['lint', 'review', 'summarize']);
    assert.deepEqual((await sb.list())[0].targets.map((t) => t.agent), ['claude-code']);
    assert.deepEqual(await doctor(), { code: 0, report: { findings: [], clean: true } });
  });

  it('disabling for one of them fails with SF_E_CONFLICT and changes nothing; for both it works', async () => {
    await install();
    const r = await sb.sf(['skit', 'disable', 'acme/kit:review', '--agent', 'cursor']);
    assert.match(r.stderr, /SF_E_CONFLICT/);
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, /review would be exposed to cursor/);
    assert.deepEqual(Object.keys(await rootContents(claude)), ['lint', 'review', 'summarize']);
    assert.deepEqual((await sb.list())[0].enablement, {});
    assert.deepEqual(await doctor(), { code: 0, report: { findings: [], clean: true } });

    // off for both: the directory goes (the native host is not asked for it), and doctor agrees
    const both = await sb.sf(['skit', 'disable', 'acme/kit:review']);
    assert.equal(both.code, 0, both.stderr);
    assert.deepEqual(Object.keys(await rootContents(claude)), ['lint', 'summarize']);
    assert.deepEqual(await doctor(), { code: 0, report: { findings: [], clean: true } });
  });

  it('doctor reports agents that disagree in one directory as a conflict and --fix does not flip it back and forth', async () => {
    // the state the link makes when it is added after the agents got different skills
    await rm(join(sb.project, '.agents', 'skills'));
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code,cursor', '--yes'])).code, 0);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:review', '--agent', 'cursor'])).code, 0);
    await rename(join(sb.project, '.agents', 'skills'), join(sb.root, 'old-agents-skills'));
    await symlink('../.claude/skills', join(sb.project, '.agents', 'skills'));

    const found = await doctor();
    assert.equal(found.code, 1);
    assert.deepEqual(codes(found.report), ['SF_E_CONFLICT']);
    assert.match(found.report.findings[0].message, /cursor and claude-code share the skill directory/);
    for (let run = 0; run < 2; run++) {
      const fixed = await doctor('--fix');
      assert.deepEqual(codes(fixed.report), ['SF_E_CONFLICT'], `--fix run ${run + 1} changes nothing it would undo later`);
      assert.deepEqual(Object.keys(await rootContents(claude)), ['lint', 'review', 'summarize']);
    }
    // following the hint resolves it
    assert.equal((await sb.sf(['skit', 'enable', 'acme/kit:review', '--agent', 'cursor'])).code, 0);
    assert.deepEqual(await doctor(), { code: 0, report: { findings: [], clean: true } });
  });

  it("another SKIT's skill of the same name is a collision through the link too, not a stale link to replace", async () => {
    const first = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes']);
    assert.equal(first.code, 0, first.stderr);
    const before = await rootContents(claude);
    const other = join(sb.root, 'other-kit');
    await writeTree(other, { ...kitTree('other', ['review']), 'README.md': kitTree('other', ['review'])['README.md'].replace('id: acme/kit', 'id: acme/other') });
    const r = await sb.sf(['add', 'skit', other, '--agent', 'cursor', '--yes']);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /SF_E_NAME_COLLISION[^\n]*belongs to acme\/kit/);
    assert.deepEqual(await rootContents(claude), before, "acme/kit's links are untouched");
    assert.equal((await doctor()).report.clean, true);
  });
});
