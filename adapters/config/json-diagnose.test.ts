import { strict as assert } from 'node:assert';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin, writeTree } from '../../test-support/index.js';
import { installSandbox, skillMarkdown, type InstallSandbox } from '../../test-support/skit-install.js';
import { traceProcess } from '../../test-support/syscalls.js';

/** acme/kit-<i>: r<i> on, o<i> off by default. */
function kit(i: number): Record<string, string> {
  const skills = [`r${i}`, `o${i}`];
  const entries = skills.map((s, k) => `  - name: ${s}\n    path: skills/${s}\n    default_enabled: ${k === 0}\n`).join('');
  const tree: Record<string, string> = { 'README.md': `---\nskit: 1\nid: acme/kit-${i}\nskills:\n${entries}---\n\n# kit ${i}\n` };
  for (const s of skills) tree[`skills/${s}/SKILL.md`] = skillMarkdown(s);
  return tree;
}

type Finding = { code: string; skitId?: string; agent?: string; file?: string };

describe('host config drift: each config file is read once per doctor pass', () => {
  let sb: InstallSandbox;
  const SKITS = 4;
  beforeEach(async () => {
    sb = await installSandbox('sf-json-diagnose-');
    for (let i = 0; i < SKITS; i++) {
      const src = join(sb.root, `kit-${i}`);
      await writeTree(src, kit(i));
      const add = await sb.sf(['add', 'skit', src, '--agent', 'claude-code,opencode', '--yes']);
      assert.equal(add.code, 0, add.stderr);
    }
  });
  afterEach(() => sb.cleanup());

  const settings = () => join(sb.project, '.claude', 'settings.local.json');
  const opencodeJson = () => join(sb.project, 'opencode.json');

  it('opens Claude Code\'s and OpenCode\'s config once for all the SKITs, not once per SKIT', async () => {
    const calls = await traceProcess(process.execPath, [sfBin, 'skit', 'doctor'], { cwd: sb.project, env: { ...process.env, ...sb.env }, trace: 'openat' });
    const opens = (file: string) => calls.filter((c) => c.call === 'openat' && c.result >= 0 && c.args.includes(`"${file}"`)).length;
    assert.deepEqual([opens(settings()), opens(opencodeJson())], [1, 1]);
  });

  it('still tells each SKIT its own drift from the one reading', async () => {
    const doc = JSON.parse(await readFile(settings(), 'utf8')) as { skillOverrides: Record<string, string> };
    assert.deepEqual(doc.skillOverrides, Object.fromEntries(Array.from({ length: SKITS }, (_, i) => [`o${i}`, 'off'])));
    // kit-1's off skill loses Forge's entry; kit-2's on skill gets one it should not have
    delete doc.skillOverrides.o1;
    doc.skillOverrides.r2 = 'off';
    await writeFile(settings(), JSON.stringify(doc, null, 2));
    const oc = JSON.parse(await readFile(opencodeJson(), 'utf8')) as { permission: { skill: Record<string, string> } };
    delete oc.permission.skill.o3;
    await writeFile(opencodeJson(), JSON.stringify(oc, null, 2));

    const r = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(r.code, 1, r.stderr);
    const findings = (JSON.parse(r.stdout) as { findings: Finding[] }).findings.map((f) => [f.code, f.skitId, f.agent, f.file]);
    assert.deepEqual(findings, [
      ['SF_DRIFT_DISABLED_EXPOSED', 'acme/kit-1', 'claude-code', settings()],
      ['SF_ADAPTER_USER_OVERRIDE', 'acme/kit-2', 'claude-code', settings()],
      ['SF_DRIFT_DISABLED_EXPOSED', 'acme/kit-3', 'opencode', opencodeJson()],
    ]);
  });
});
