import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, tempDir } from '../../../test-support/index.js';

/**
 * `sf observe uninstall` when the user deleted the "# managed by sf: observe" line above Codex's
 * [otel] table: Forge can no longer tell the table from the user's, so it leaves it, and says so
 * (exit 1, the host kept in the install record) instead of reporting Codex as removed while
 * Codex keeps exporting to the observer.
 */
describe('sf observe uninstall: Codex [otel] without its marker line', function () {
  this.timeout(60_000);
  const USER = 'model = "o3"\n';

  async function setup() {
    const tmp = await tempDir('sf-observe-leftover-');
    const home = join(tmp.path, 'home');
    await mkdir(join(home, '.codex'), { recursive: true });
    const file = join(home, '.codex', 'config.toml');
    await writeFile(file, USER);
    const env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CODEX_HOME: '', PATH: '/usr/bin:/bin' };
    const sf = (args: string[]) => runSf(args, { env, cwd: tmp.path });
    const install = await sf(['observe', 'install', '--yes', '--no-service', '--agents', 'codex', '--port', '14555']);
    assert.equal(install.code, 0, install.stderr);
    const installed = await readFile(file, 'utf8');
    await writeFile(file, installed.replace('# managed by sf: observe\n', ''));
    return { tmp, home, file, sf, installed, record: join(home, '.sf', 'observe', 'install.json') };
  }

  it('is not reported as removed: the file and the keys left are named, exit 1, and Codex stays recorded until the user took them out', async () => {
    const { tmp, file, sf, record } = await setup();
    try {
      const unmarked = await readFile(file, 'utf8');
      const r = await sf(['observe', 'uninstall', '--yes', '--json']);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      const out = JSON.parse(r.stdout) as { agents: { agent: string; status: string; diagnostics: { code: string; severity: string; file: string; message: string; hint: string }[] }[] };
      assert.equal(out.agents[0].status, 'failed');
      const [d] = out.agents[0].diagnostics;
      assert.equal(d.code, 'SF_OBSERVE_LEFT_IN_PLACE');
      assert.equal(d.file, file);
      assert.match(d.message, /Codex: Forge's \[otel\] settings in .*config\.toml were left in place: the line "# managed by sf: observe" above \[otel\] is gone/);
      assert.match(d.message, /keys "log_user_prompt", "exporter", "metrics_exporter" still hold Forge's values, so Codex keeps exporting to the observer on 127\.0\.0\.1:14555/);
      assert.match(d.hint, /put the line "# managed by sf: observe" back right above \[otel\] and run `sf observe uninstall` again/);
      assert.equal(await readFile(file, 'utf8'), unmarked, 'the file is left as it is');
      const kept = JSON.parse(await readFile(record, 'utf8')) as { hosts: Record<string, unknown> };
      assert.deepEqual(Object.keys(kept.hosts), ['codex'], 'Codex stays recorded');
      // doctor says the same, and how to let Forge manage it again
      const drift = (JSON.parse((await sf(['observe', 'doctor', '--json'])).stdout).diagnostics as { code: string; file?: string; message: string; hint: string }[]).find((x) => x.file === file)!;
      assert.match(drift.message, /no longer Forge's \(the marker line is gone\), though keys "log_user_prompt", "exporter", "metrics_exporter" still hold Forge's values/);
      assert.match(drift.hint, /put the line "# managed by sf: observe" back right above \[otel\]/);

      const text = await sf(['observe', 'uninstall', '--yes']);
      assert.equal(text.code, 1);
      assert.match(text.stdout, /^failed: Codex$/m);
      assert.match(text.stderr, /SF_OBSERVE_LEFT_IN_PLACE/);

      // the user takes Forge's keys out: the next uninstall finishes
      await writeFile(file, USER);
      const done = await sf(['observe', 'uninstall', '--yes', '--json']);
      assert.equal(done.code, 0, done.stdout);
      assert.equal(JSON.parse(done.stdout).agents[0].status, 'removed');
      assert.ok(!existsSync(record));
      assert.equal(await readFile(file, 'utf8'), USER);
    } finally {
      await tmp.cleanup();
    }
  });

  it('with the marker line put back, the next uninstall gives the user their bytes back', async () => {
    const { tmp, file, sf, installed, record } = await setup();
    try {
      assert.equal((await sf(['observe', 'uninstall', '--yes'])).code, 1);
      await writeFile(file, installed);
      const r = await sf(['observe', 'uninstall', '--yes']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^removed: Codex$/m);
      assert.equal(await readFile(file, 'utf8'), USER);
      assert.ok(!existsSync(record));
    } finally {
      await tmp.cleanup();
    }
  });
});
