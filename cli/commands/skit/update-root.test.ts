import { strict as assert } from 'node:assert';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installSandbox, rootContents, type InstallSandbox } from '../../../test-support/skit-install.js';

/** A config file's JSON, or null when it is not there. */
const readJson = (file: string) => readFile(file, 'utf8').then((t) => JSON.parse(t) as Record<string, unknown>, () => null);

describe('sf skit update: an agent whose skill directory moved since the install (CLAUDE_CONFIG_DIR changed) is updated where it reads skills now', function () {
  this.timeout(60_000);
  let sb: InstallSandbox;
  let before: string;
  let now: string;
  beforeEach(async () => {
    sb = await installSandbox('sf-update-root-');
    [before, now] = [join(sb.home, '.claude-work'), join(sb.home, '.claude-home')];
    await mkdir(before, { recursive: true });
    await mkdir(now, { recursive: true });
    const env = { CLAUDE_CONFIG_DIR: before };
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--scope', 'user', '--agent', 'claude-code', '--yes'], { env })).code, 0);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:review', '--scope', 'user'], { env })).code, 0);
    await appendFile(join(sb.source, 'skills', 'summarize', 'SKILL.md'), 'two\n');
  });
  afterEach(() => sb.cleanup());

  it('moves the skills and their switches to the new directory, and records only that', async () => {
    const env = { CLAUDE_CONFIG_DIR: now };
    const up = await sb.sf(['skit', 'update', '--all', '--scope', 'user'], { env });
    assert.equal(up.code, 0, up.stdout + up.stderr);
    assert.match(up.stdout + up.stderr, /moved from .*\.claude-work\/skills to .*\.claude-home\/skills/);
    assert.deepEqual(await rootContents(join(before, 'skills')), {});
    assert.deepEqual(Object.keys(await rootContents(join(now, 'skills'))), ['lint', 'review', 'summarize']);
    assert.deepEqual((await readJson(join(now, 'settings.json')))?.skillOverrides, { review: 'off' });
    assert.equal(JSON.stringify((await readJson(join(before, 'settings.json'))) ?? {}).includes('review'), false);
    const [rec] = await sb.list();
    assert.equal(rec.targets[0].skillRoot, join(now, 'skills'));
    assert.ok(rec.targets[0].paths.every((p) => p.path.startsWith(join(now, 'skills'))), JSON.stringify(rec.targets[0].paths));
    const doctor = await sb.sf(['skit', 'doctor'], { env });
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  });

  it("stops while planning at the user's own skill in the new directory, changing nothing", async () => {
    await mkdir(join(now, 'skills', 'lint'), { recursive: true });
    await writeFile(join(now, 'skills', 'lint', 'SKILL.md'), 'mine\n');
    const up = await sb.sf(['skit', 'update', '--all', '--scope', 'user'], { env: { CLAUDE_CONFIG_DIR: now } });
    assert.notEqual(up.code, 0);
    // the planner's message, not the adapter's mid-apply one ("is not managed by Forge") followed by a rollback
    assert.match(up.stdout + up.stderr, /lint already exists and was not installed by Forge/);
    assert.deepEqual(Object.keys(await rootContents(join(before, 'skills'))), ['lint', 'review', 'summarize']);
    assert.deepEqual(await rootContents(join(now, 'skills')), { lint: 'dir' });
    assert.equal(await readJson(join(now, 'settings.json')), null);
    assert.equal((await sb.list())[0].targets[0].skillRoot, join(before, 'skills'));
  });
});
