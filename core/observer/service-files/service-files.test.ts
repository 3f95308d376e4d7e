import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixturesDir, tempDir } from '../../../test-support/index.js';
import { encodeTaskXml, launchdPlist, systemdUnit, windowsArg, windowsTaskXml, type ServiceSpec } from './index.js';

const SPEC: ServiceSpec = { node: '/usr/local/bin/node', sfScript: '/opt/forge tools/sf/dist/cli/sf.js', sfHome: '/home/me/.sf 100%', userId: 'DESKTOP\\me' };

async function golden(name: string, text: string): Promise<void> {
  const path = join(fixturesDir, 'service-files', name);
  if (process.env.UPDATE_GOLDEN === '1') await writeFile(path, text);
  assert.equal(text, await readFile(path, 'utf8'), `differs from fixtures/service-files/${name} (UPDATE_GOLDEN=1 rewrites it)`);
}

describe('service files for `sf observe daemon`', () => {
  it('systemd user unit: quoted ExecStart with --sf-home, optional env file, restart on failure', async () => {
    const unit = systemdUnit(SPEC);
    await golden('sf-observer.service', unit);
    const exec = unit.split('\n').find((l) => l.startsWith('ExecStart='))!;
    assert.equal(exec, 'ExecStart=/usr/local/bin/node "/opt/forge tools/sf/dist/cli/sf.js" observe daemon --sf-home "/home/me/.sf 100%%"');
    // systemd takes EnvironmentFile= as one path, whitespace included (no quotes, no C escapes),
    // expanding only %-specifiers: a $SF_HOME with a space still gets its observer.env
    assert.equal(unit.split('\n').find((l) => l.startsWith('EnvironmentFile=')), 'EnvironmentFile=-/home/me/.sf 100%%/observer.env');
    assert.doesNotMatch(unit, /omitted/);
    assert.match(systemdUnit({ ...SPEC, sfHome: '/home/me/.sf' }), /^EnvironmentFile=-\/home\/me\/\.sf\/observer\.env$/m);
    // a line break cannot be written in a unit line at all
    assert.match(systemdUnit({ ...SPEC, sfHome: '/home/me/a\nb' }), /^# EnvironmentFile omitted: \$SF_HOME contains a line break$/m);
    assert.match(unit, /^WantedBy=default\.target$/m);
  });

  it('systemd reads the EnvironmentFile path of a $SF_HOME with spaces and % as the real directory', async function () {
    // ConditionPathExists= is parsed like EnvironmentFile= (specifiers expanded, no unquoting or
    // unescaping), and `systemd-analyze condition` says whether the path it read exists
    try {
      execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
    } catch {
      this.skip();
    }
    const tmp = await tempDir('sf-unit-env-');
    try {
      const sfHome = join(tmp.path, 'my sf 100%');
      await mkdir(sfHome);
      await writeFile(join(sfHome, 'observer.env'), 'A=1\n');
      const line = systemdUnit({ ...SPEC, sfHome }).split('\n').find((l) => l.startsWith('EnvironmentFile=-'))!;
      const path = line.slice('EnvironmentFile=-'.length);
      const r = spawnSync('systemd-analyze', ['condition', `ConditionPathExists=${path}`], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.match(r.stdout + r.stderr, /succeeded/);
    } finally {
      await tmp.cleanup();
    }
  });

  it('launchd plist: arguments one per string, XML-escaped, kept alive on failure', async () => {
    const plist = launchdPlist({ ...SPEC, sfHome: '/Users/me/<sf>&' });
    await golden('dev.forge.sf.observer.plist', plist);
    assert.match(plist, /<string>\/opt\/forge tools\/sf\/dist\/cli\/sf\.js<\/string>/);
    assert.match(plist, /<string>\/Users\/me\/&lt;sf&gt;&amp;<\/string>/);
    assert.equal((plist.match(/<dict>/g) ?? []).length, (plist.match(/<\/dict>/g) ?? []).length);
  });

  it('Windows task: logon trigger, restart on failure, CommandLineToArgvW quoting, UTF-16LE with BOM', async () => {
    const xml = windowsTaskXml({ ...SPEC, node: 'C:\\Program Files\\nodejs\\node.exe', sfScript: 'C:\\Users\\me\\forge\\dist\\cli\\sf.js', sfHome: 'C:\\Users\\me\\.sf' });
    await golden('sf-observer.task.xml', xml);
    assert.match(xml, /<Arguments>C:\\Users\\me\\forge\\dist\\cli\\sf\.js observe daemon --sf-home C:\\Users\\me\\\.sf<\/Arguments>/);
    assert.match(xml, /<UserId>DESKTOP\\me<\/UserId>/);
    assert.equal(windowsArg('C:\\a b\\'), '"C:\\a b\\\\"');
    assert.equal(windowsArg('say "hi"'), '"say \\"hi\\""');
    const bytes = encodeTaskXml(xml);
    assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xfe]);
    assert.equal(bytes.subarray(2).toString('utf16le'), xml.replace(/\n/g, '\r\n'));
  });
});
