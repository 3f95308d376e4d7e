import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join, sep } from 'node:path';
import { runSf } from '../../test-support/index.js';
import { startMockAnthropic } from '../../test-support/hosts/mock-anthropic.js';
import { hostBinary, runHost } from '../../test-support/hosts/run-host.js';
import { installTwoSkillSkit, type HostSandbox } from '../../test-support/hosts/skit-install.js';
import { CLAUDE_MANAGED_DIR_VAR } from './layers.js';

/** Whether the real Claude Code, run in `cwd`, lists `skill` to the model. */
async function claudeLists(box: HostSandbox, cwd: string, skill: string): Promise<boolean> {
  const bin = hostBinary('@anthropic-ai/claude-code/bin/claude.exe', '@anthropic-ai/claude-code');
  const mock = await startMockAnthropic([]);
  try {
    const run = await runHost(bin, ['-p', 'Hello.', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Skill', '--model', 'claude-sonnet-4-5'], {
      cwd, home: box.home, timeoutMs: 60_000,
      env: { ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'dummy', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_TELEMETRY: '1' },
    });
    const turn = mock.requests.find((r) => r.path.endsWith('/v1/messages') && r.body?.tools?.some((t: any) => t.name === 'Skill'));
    assert.ok(run.code === 0 && turn, `exit ${run.code}: ${run.stderr.slice(0, 2000)}`);
    return new RegExp(`- ${skill}:`).test(JSON.stringify(turn.body.messages) + JSON.stringify(turn.body.system));
  } finally {
    await mock.close();
  }
}

describe('Claude Code settings that outrank a user-scope switch (real sf, real binary)', function () {
  this.timeout(120_000);
  let box: HostSandbox;
  before(async () => {
    box = await installTwoSkillSkit('claude-code', undefined, { scope: 'user' });
  });
  after(() => box?.cleanup());
  // without node_modules/.bin (`npm test` puts it on PATH): an OpenCode found there reads ~/.claude/skills and adds its own warning
  const path = (process.env.PATH ?? '').split(delimiter).filter((d) => !d.includes(`node_modules${sep}.bin`)).join(delimiter);
  const env = () => ({ PATH: path, HOME: box.home, SF_HOME: box.sfHome, XDG_CONFIG_HOME: join(box.home, '.config'), CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', [CLAUDE_MANAGED_DIR_VAR]: join(box.root, 'managed') });

  it('a project\'s committed "on" shows the disabled skill there; doctor run in that project says so, and disable warns', async () => {
    const committed = join(box.project, '.claude/settings.json');
    assert.equal(await claudeLists(box, box.project, box.disabled), false, 'the user-scope "off" holds');
    // nothing exposes the disabled skill yet (other findings, e.g. OpenCode on PATH under `npm test` reading ~/.claude/skills, are not this test's)
    const clean = await runSf(['skit', 'doctor', '--json'], { cwd: box.project, env: env() });
    assert.deepEqual((JSON.parse(clean.stdout) as { findings: { code: string }[] }).findings.filter((d) => d.code === 'SF_DRIFT_DISABLED_EXPOSED'), [], clean.stdout);

    await mkdir(join(box.project, '.claude'), { recursive: true });
    await writeFile(committed, JSON.stringify({ skillOverrides: { [box.disabled]: 'on' } }));
    assert.equal(await claudeLists(box, box.project, box.disabled), true, 'Claude Code lets the project settings win');

    const doctor = await runSf(['skit', 'doctor', '--json'], { cwd: box.project, env: env() });
    assert.notEqual(doctor.code, 0, doctor.stdout);
    const findings = (JSON.parse(doctor.stdout) as { findings: { code: string; file?: string; message: string }[] }).findings;
    const found = findings.filter((d) => d.code === 'SF_DRIFT_DISABLED_EXPOSED');
    assert.deepEqual(found.map((d) => d.file), [committed], doctor.stdout);
    assert.match(found[0].message, /"skillOverrides\.summarize": "on"/);

    const again = await runSf(['skit', 'disable', `local/kit:${box.disabled}`, '--scope', 'user'], { cwd: box.project, env: env() });
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.stderr.includes(`${committed}  warning  SF_DRIFT_DISABLED_EXPOSED`), again.stderr);

    // elsewhere the user-scope switch still holds, and doctor run there cannot see this project
    assert.equal((await runSf(['skit', 'doctor'], { cwd: box.root, env: env() })).code, 0);
  });

  it('a managed "on" is found by doctor wherever it runs, and named when the skill is disabled again', async () => {
    const file = join(box.root, 'managed', 'managed-settings.d', '50-team.json');
    await mkdir(join(box.root, 'managed', 'managed-settings.d'), { recursive: true });
    await writeFile(file, JSON.stringify({ skillOverrides: { [box.disabled]: 'on' } }));
    const doctor = await runSf(['skit', 'doctor', '--json'], { cwd: box.root, env: env() });
    assert.notEqual(doctor.code, 0, doctor.stdout);
    assert.ok(doctor.stdout.includes(file), doctor.stdout);
    await runSf(['skit', 'enable', `local/kit:${box.disabled}`, '--scope', 'user'], { cwd: box.root, env: env() });
    const disable = await runSf(['skit', 'disable', `local/kit:${box.disabled}`, '--scope', 'user'], { cwd: box.root, env: env() });
    assert.equal(disable.code, 0, disable.stderr);
    assert.ok(disable.stderr.includes(`${file}  warning  SF_DRIFT_DISABLED_EXPOSED`), disable.stderr);
  });
});
