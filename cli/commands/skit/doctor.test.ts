import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, utimes, writeFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTree } from '../../../test-support/index.js';
import { installSandbox, rootContents, skillMarkdown, type InstallSandbox } from '../../../test-support/skit-install.js';

interface Report {
  clean: boolean;
  findings: { code: string; severity: string; agent?: string; fixed?: boolean; message: string; hint?: string }[];
}

describe('sf skit doctor: detection and --fix', () => {
  let sb: InstallSandbox;
  let windsurf: string;
  let cline: string;
  const doctor = async (...args: string[]) => {
    const r = await sb.sf(['skit', 'doctor', '--json', ...args]);
    return { code: r.code, report: JSON.parse(r.stdout) as Report };
  };
  beforeEach(async () => {
    sb = await installSandbox();
    windsurf = join(sb.project, '.windsurf', 'skills');
    cline = join(sb.project, '.agents', 'skills');
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf,cline', '--yes']);
    assert.equal(r.code, 0, r.stderr);
  });
  afterEach(() => sb.cleanup());

  it('reports a clean install as clean', async () => {
    const { code, report } = await doctor();
    assert.equal(code, 0);
    assert.deepEqual(report, { findings: [], clean: true });
  });

  it('finds missing and dangling links, exposed disabled skills, leftovers and unreferenced store entries, and repairs them', async () => {
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:lint'])).code, 0);
    const [rec] = await sb.list();
    const storeSkills = join(sb.sfHome, 'store', rec.bundleHash.slice(7), 'skills');
    await rm(join(windsurf, 'review'));
    await rm(join(cline, 'summarize'));
    await symlink(join(sb.sfHome, 'store', 'gone', 'skills', 'summarize'), join(cline, 'summarize'));
    await symlink(join(storeSkills, 'lint'), join(windsurf, 'lint'));
    await mkdir(join(sb.project, '.windsurf', '.sf-tmp', 'review.new.999999999.abcd'), { recursive: true });
    await mkdir(join(sb.sfHome, 'store', 'f'.repeat(64), 'skills'), { recursive: true });

    const found = await doctor();
    assert.equal(found.code, 1);
    const codes = found.report.findings.map((f) => `${f.code}${f.agent ? ` ${f.agent}` : ''}`).sort();
    assert.deepEqual(codes, [
      'SF_DRIFT_DANGLING_LINK cline',
      'SF_DRIFT_DISABLED_EXPOSED windsurf',
      'SF_DRIFT_MISSING windsurf',
      'SF_DRIFT_STAGING_LEFTOVER windsurf',
      'SF_DRIFT_STORE_UNREFERENCED',
    ]);

    const fixed = await doctor('--fix');
    assert.equal(fixed.code, 0, JSON.stringify(fixed.report));
    assert.ok(fixed.report.findings.every((f) => f.fixed));
    assert.deepEqual(await doctor(), { code: 0, report: { findings: [], clean: true } });
    assert.deepEqual(Object.keys(await rootContents(windsurf)), ['review', 'summarize']);
    assert.equal((await rootContents(cline)).summarize, join(storeSkills, 'summarize'));
  });

  it('reports store corruption made through a linked skill, and repairs it only with --force', async () => {
    await appendFile(join(windsurf, 'review', 'SKILL.md'), 'edited through the link\n');
    const found = await doctor();
    assert.equal(found.code, 1);
    assert.deepEqual(found.report.findings.map((f) => f.code), ['SF_DRIFT_STORE_CORRUPT']);
    const unforced = await doctor('--fix');
    assert.equal(unforced.code, 1);
    assert.match(await readFile(join(windsurf, 'review', 'SKILL.md'), 'utf8'), /edited through the link/);
    // the finding --fix leaves must name what repairs it, not send the user back to --fix
    const left = unforced.report.findings.find((f) => f.code === 'SF_DRIFT_STORE_CORRUPT');
    assert.match(left?.hint ?? '', /doctor --fix --force/);
    const forced = await doctor('--fix', '--force');
    assert.equal(forced.code, 0, JSON.stringify(forced.report));
    assert.doesNotMatch(await readFile(join(windsurf, 'review', 'SKILL.md'), 'utf8'), /edited through the link/);
    assert.equal((await doctor()).code, 0);
  });

  it('keeps the scratch of a running fetch, but not scratch whose pid now belongs to a process started later', async () => {
    const stranger = spawn('sleep', ['30']);
    try {
      await new Promise((r) => setTimeout(r, 50));
      const live = join(sb.sfHome, 'tmp', `src-${stranger.pid}-fresh`);
      const reused = join(sb.sfHome, 'tmp', `src-${stranger.pid}-old`);
      await mkdir(live, { recursive: true });
      await mkdir(reused, { recursive: true });
      const hourAgo = new Date(Date.now() - 3_600_000);
      await utimes(reused, hourAgo, hourAgo);
      const { report } = await doctor('--fix');
      assert.deepEqual(report.findings.map((f) => [f.code, f.message]), [['SF_DRIFT_STAGING_LEFTOVER', `interrupted commands left 1 scratch entry in ${sb.sfHome}`]]);
      assert.deepEqual(await readdir(join(sb.sfHome, 'tmp')), [`src-${stranger.pid}-fresh`]);
    } finally {
      stranger.kill();
    }
  });

  it('a store entry that cannot be fetched again is reported, and its dangling links are not called fixed', async () => {
    for (const entry of await readdir(join(sb.sfHome, 'store'))) if (entry !== '.staging') await rm(join(sb.sfHome, 'store', entry), { recursive: true });
    await rm(sb.source, { recursive: true }); // the local source is gone too
    const { code, report } = await doctor('--fix');
    assert.equal(code, 1);
    assert.ok(report.findings.some((f) => f.code === 'SF_DRIFT_STORE_MISSING' && !f.fixed));
    assert.deepEqual(report.findings.filter((f) => f.fixed).map((f) => f.code), [], 'nothing is reported fixed: the links would dangle again');
  });

  it('reports an interrupted command and finishes it with --fix', async () => {
    await writeFile(join(sb.source, 'skills', 'review', 'SKILL.md'), (await readFile(join(sb.source, 'skills', 'review', 'SKILL.md'), 'utf8')) + 'v2\n');
    const crashed = await sb.sf(['skit', 'update', 'acme/kit'], { env: { SF_CRASH_AT: 'update:after-project' } });
    assert.equal(crashed.code, -1);
    const found = await doctor();
    assert.equal(found.code, 1);
    assert.ok(found.report.findings.some((f) => f.code === 'SF_DRIFT_INTERRUPTED' && f.severity === 'error'));
    const list = await sb.sf(['skit', 'list']);
    assert.match(list.stderr, /interrupted/);
    const fixed = await doctor('--fix');
    assert.equal(fixed.code, 0, JSON.stringify(fixed.report));
    assert.match(fixed.report.findings.find((f) => f.code === 'SF_DRIFT_INTERRUPTED')!.message, /rolled-forward/);
    assert.equal((await doctor()).code, 0);
    assert.match(await readFile(join(windsurf, 'review', 'SKILL.md'), 'utf8'), /v2/);
  });
});

describe('sf skit doctor --fix: only what a repair mended is fixed', () => {
  let sb: InstallSandbox;
  const doctor = async (...args: string[]) => {
    const r = await sb.sf(['skit', 'doctor', '--json', ...args]);
    return { code: r.code, report: JSON.parse(r.stdout) as Report };
  };
  beforeEach(async () => {
    sb = await installSandbox('sf-doctor-fixed-');
    // the user's own "review" in Claude Code's user skill root, which skillOverrides (by name) also reach
    await writeTree(join(sb.home, '.claude', 'skills', 'review'), { 'SKILL.md': skillMarkdown('review', 'mine') });
    // and their own switch that keeps "lint" off, which Forge never edits
    await writeTree(join(sb.project, '.claude'), { 'settings.local.json': '{ "skillOverrides": { "lint": "off" } }\n' });
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes']);
    assert.equal(r.code, 0, r.stderr);
  });
  afterEach(() => sb.cleanup());

  it('a name shadow and a user override stay open after --fix (exit 1, not clean), while a missing link next to them is fixed', async () => {
    await rm(join(sb.project, '.claude', 'skills', 'summarize'));
    const before = await doctor();
    assert.deepEqual(before.report.findings.map((f) => f.code).sort(), ['SF_ADAPTER_NAME_SHADOW', 'SF_ADAPTER_USER_OVERRIDE', 'SF_DRIFT_MISSING']);

    const fixed = await doctor('--fix');
    assert.equal(fixed.code, 1, JSON.stringify(fixed.report));
    assert.equal(fixed.report.clean, false);
    assert.deepEqual(fixed.report.findings.map((f) => [f.code, f.fixed ?? false]).sort(), [
      ['SF_ADAPTER_NAME_SHADOW', false],
      ['SF_ADAPTER_USER_OVERRIDE', false],
      ['SF_DRIFT_MISSING', true],
    ]);
    const again = await doctor();
    assert.equal(again.code, 1);
    assert.deepEqual(again.report.findings.map((f) => f.code).sort(), ['SF_ADAPTER_NAME_SHADOW', 'SF_ADAPTER_USER_OVERRIDE']);

    // the text says the same: what was fixed, and that problems remain
    const text = await sb.sf(['skit', 'doctor', '--fix']);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /warning {2}SF_ADAPTER_NAME_SHADOW/);
    assert.match(text.stdout, /problems remain: 2 warnings left/);
    assert.doesNotMatch(text.stdout, /everything is in order/);
  });

  it('a staging leftover next to a Claude Code skill root is deleted by the repair, not only called fixed', async () => {
    const leftover = join(sb.project, '.claude', '.sf-tmp', 'review.new.999999999.abcd');
    await mkdir(leftover, { recursive: true });
    const fixed = await doctor('--fix');
    assert.ok(fixed.report.findings.some((f) => f.code === 'SF_DRIFT_STAGING_LEFTOVER' && f.fixed), JSON.stringify(fixed.report));
    assert.equal(existsSync(leftover), false);
    assert.ok(!(await doctor()).report.findings.some((f) => f.code === 'SF_DRIFT_STAGING_LEFTOVER'));
  });

  it('--force without --fix is refused, not ignored (cliux observation 5)', async () => {
    const r = await sb.sf(['skit', 'doctor', '--force']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /error\[SF_E_USAGE\]: --force works only with --fix/);
  });

  it('--json lists each finding\'s keys in the order docs/cli-json.md gives', async () => {
    await rm(join(sb.project, '.claude', 'skills', 'summarize'));
    const r = await sb.sf(['skit', 'doctor', '--json', '--fix']);
    const documented = ['code', 'severity', 'message', 'file', 'hint', 'skitId', 'agent', 'scope', 'fixed'];
    const findings = (JSON.parse(r.stdout) as { findings: Record<string, unknown>[] }).findings;
    assert.ok(findings.length >= 3);
    for (const f of findings) {
      const keys = Object.keys(f).filter((k) => documented.includes(k));
      assert.deepEqual(keys, documented.filter((k) => k in f), JSON.stringify(f));
    }
    assert.deepEqual(Object.keys(findings.find((f) => f.code === 'SF_DRIFT_MISSING')!), ['code', 'severity', 'message', 'file', 'hint', 'skitId', 'agent', 'scope', 'fixed']);
  });
});
