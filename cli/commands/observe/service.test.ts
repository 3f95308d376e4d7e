import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, tempDir } from '../../../test-support/index.js';

/**
 * The observer service step of `sf observe install` / `uninstall`: with a systemd user manager (a
 * stand-in `systemctl` on PATH that records its calls), the unit is written, enabled and started,
 * and removed again; without one, the unit is written for inspection and the user is told how to
 * run the observer.
 */
describe('sf observe install: the observer user service', function () {
  this.timeout(60_000);

  async function sandbox(withSystemctl: boolean) {
    const tmp = await tempDir('sf-observe-svc-');
    const bin = join(tmp.path, 'bin');
    const log = join(tmp.path, 'systemctl.log');
    await mkdir(bin, { recursive: true });
    if (withSystemctl) {
      await writeFile(join(bin, 'systemctl'), `#!/bin/sh\necho "$*" >> '${log}'\nexit 0\n`);
      await chmod(join(bin, 'systemctl'), 0o755);
    }
    const env = { HOME: join(tmp.path, 'home'), SF_HOME: join(tmp.path, 'home', '.sf'), XDG_CONFIG_HOME: join(tmp.path, 'xdg'), PATH: `${bin}:/usr/bin:/bin` };
    return { tmp, log, env, sf: (args: string[]) => runSf(args, { env, cwd: tmp.path }) };
  }

  it('writes, enables and (re)starts a systemd user unit that runs this sf, and uninstall removes it', async () => {
    const s = await sandbox(true);
    try {
      const r = await s.sf(['observe', 'install', '--yes', '--agents', 'none']);
      assert.equal(r.code, 0, r.stderr);
      const unit = join(s.env.XDG_CONFIG_HOME, 'systemd', 'user', 'sf-observer.service');
      const text = readFileSync(unit, 'utf8');
      assert.match(text, /ExecStart=\S+node\S* \S+\/dist\/cli\/sf\.cjs observe daemon --sf-home \S+\/home\/\.sf/);
      assert.deepEqual(readFileSync(s.log, 'utf8').trim().split('\n'), ['--user show-environment', '--user daemon-reload', '--user enable sf-observer.service', '--user restart sf-observer.service']);
      assert.match(r.stdout, /enabled and \(re\)started/);
      const record = JSON.parse(readFileSync(join(s.env.SF_HOME, 'observe', 'install.json'), 'utf8'));
      assert.equal(record.service.unitFile, unit);
      const u = await s.sf(['observe', 'uninstall', '--yes']);
      assert.equal(u.code, 0, u.stderr);
      assert.ok(!existsSync(unit));
      assert.match(readFileSync(s.log, 'utf8'), /--user disable --now sf-observer\.service\n--user daemon-reload\n$/);
    } finally {
      await s.tmp.cleanup();
    }
  });

  it('without a systemd user manager, writes the unit under $SF_HOME for inspection and says how to run the observer', async () => {
    const s = await sandbox(false);
    try {
      const r = await s.sf(['observe', 'install', '--yes', '--agents', 'none']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /no systemd user manager here; install \S+sf-observer\.service as a service yourself, or keep `sf observe daemon` running/);
      assert.ok(existsSync(join(s.env.SF_HOME, 'observe', 'service', 'sf-observer.service')));
      assert.ok(!existsSync(join(s.env.XDG_CONFIG_HOME, 'systemd')));
      // the generated file is Forge's: uninstall takes it away again
      const u = await s.sf(['observe', 'uninstall', '--yes']);
      assert.equal(u.code, 0, u.stderr);
      assert.match(u.stdout, /removed the generated \S+sf-observer\.service/);
      assert.ok(!existsSync(join(s.env.SF_HOME, 'observe', 'service', 'sf-observer.service')));
    } finally {
      await s.tmp.cleanup();
    }
  });

  it('refuses an otelcol-contrib archive that does not match the pinned sha256, before changing anything', async () => {
    const s = await sandbox(false);
    try {
      const archive = join(s.tmp.path, 'otelcol-contrib_0.0.0_linux_amd64.tar.gz');
      await writeFile(archive, 'not the pinned archive');
      const r = await s.sf(['observe', 'install', '--yes', '--agents', 'none', '--no-service', '--collector-archive', archive]);
      assert.equal(r.code, 5, r.stderr);
      assert.match(r.stderr, /SF_E_HASH_MISMATCH|does not match the pinned sha256|no pinned otelcol-contrib/);
      assert.ok(!existsSync(join(s.env.SF_HOME, 'config.json')), 'nothing was configured');
      assert.ok(!existsSync(join(s.env.SF_HOME, 'collector', 'bin')));
    } finally {
      await s.tmp.cleanup();
    }
  });

  it('checks the collector archive in the dry run too: a fake one is refused, a missing one is not found, never "verified" (docs D2)', async () => {
    const s = await sandbox(false);
    try {
      const archive = join(s.tmp.path, 'fake.tar.gz');
      await writeFile(archive, 'not the pinned archive');
      const fake = await s.sf(['observe', 'install', '--agents', 'none', '--no-service', '--collector-archive', archive]);
      assert.equal(fake.code, 5, fake.stdout);
      assert.match(fake.stderr, /SF_E_HASH_MISMATCH|no pinned otelcol-contrib/);
      assert.doesNotMatch(fake.stdout, /verified|dry run/);
      const json = await s.sf(['observe', 'install', '--agents', 'none', '--no-service', '--collector-archive', archive, '--json']);
      assert.equal(json.code, 5, json.stdout);
      assert.equal(json.stdout, '');
      for (const yes of [[], ['--yes']]) {
        const missing = await s.sf(['observe', 'install', ...yes, '--agents', 'none', '--no-service', '--collector-archive', join(s.tmp.path, 'nope.tgz')]);
        assert.equal(missing.code, 3, missing.stderr);
        assert.match(missing.stderr, /error\[SF_E_NOT_FOUND\]: the collector archive \S+nope\.tgz does not exist/);
        assert.match(missing.stderr, /hint: download https:\/\/github\.com\/open-telemetry\/\S+ and pass its path to --collector-archive/);
      }
      assert.ok(!existsSync(join(s.env.SF_HOME, 'config.json')), 'nothing was configured');
    } finally {
      await s.tmp.cleanup();
    }
  });

  it('says the user chose no agents with --agents none, not that none were found (docs D12)', async () => {
    const s = await sandbox(false);
    try {
      const r = await s.sf(['observe', 'install', '--agents', 'none', '--no-service']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^ {2}agents: none \(--agents none\)$/m);
      assert.doesNotMatch(r.stdout, /none found/);
    } finally {
      await s.tmp.cleanup();
    }
  });
});
