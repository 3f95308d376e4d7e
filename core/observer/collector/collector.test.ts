import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SfError } from '../../errors/index.js';
import { fixturesDir, tempDir } from '../../../test-support/index.js';
import { freePort, waitFor } from '../../../test-support/otlp-sink.js';
import { DEFAULT_OBSERVE_CONFIG, type ObserveConfig } from '../config.js';
import { startObserver } from '../service.js';
import { buildCollectorConfig, renderCollectorConfig } from './config.js';
import { checkCollectorConfig, mergeCollectorYaml } from './merge.js';
import { PINNED_COLLECTOR, type CollectorManifest } from './pinned.js';
import { collectorLayout, writeCollectorConfig } from './prepare.js';
import { installCollectorFromArchive, platformKey, sha256File, verifyCollectorArchive, verifyInstalledCollector } from './verify.js';

const DESTINATIONS: ObserveConfig['destinations'] = [
  { name: 'hub', type: 'hub', endpoint: 'https://hub.example.com/', credential: { file: '/home/me/.sf/credentials/hub' } },
  { name: 'honeycomb', type: 'otlp', endpoint: 'https://api.honeycomb.io', headers: { 'x-honeycomb-team': { env: 'HONEYCOMB_KEY' }, 'x-dataset': 'agents' }, protocol: 'json' },
  { name: 'local', type: 'file', path: '/home/me/.sf/telemetry.jsonl' },
];

/** A stand-in otelcol-contrib: reads its --config files, serves OTLP/HTTP on the configured port and logs what it gets. */
const FAKE_COLLECTOR = `#!/usr/bin/env node
const http = require('node:http'); const fs = require('node:fs'); const path = require('node:path');
const files = process.argv.slice(2).filter((a) => a.startsWith('--config=file:')).map((a) => a.slice('--config=file:'.length));
const managed = fs.readFileSync(files[0], 'utf8');
const port = Number(/endpoint: 127\\.0\\.0\\.1:(\\d+)/.exec(managed)[1]);
const out = path.join(path.dirname(files[0]), 'fake-received.jsonl');
fs.appendFileSync(out, JSON.stringify({ started: true, args: process.argv.slice(2), hubCredential: process.env.SF_OBSERVE_HUB_CREDENTIAL ?? null }) + '\\n');
http.createServer((req, res) => { let n = 0; req.on('data', (c) => (n += c.length)); req.on('end', () => { fs.appendFileSync(out, JSON.stringify({ path: req.url, type: req.headers['content-type'], bytes: n }) + '\\n'); res.writeHead(200, { 'content-type': req.headers['content-type'] }); res.end(); }); }).listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`;

describe('otelcol-contrib: generated config, checksum verification, supervised collector mode', function () {
  this.timeout(30_000);

  it('generates the managed config (golden), parseable YAML with no credential values', async () => {
    const { config, env } = buildCollectorConfig({ receiverPort: 14317, storageDir: '/home/me/.sf/collector/storage', destinations: DESTINATIONS });
    const text = renderCollectorConfig(config);
    const golden = join(fixturesDir, 'collector', 'managed.yaml');
    if (process.env.UPDATE_GOLDEN === '1') await writeFile(golden, text);
    assert.equal(text, await readFile(golden, 'utf8'), 'differs from fixtures/collector/managed.yaml (UPDATE_GOLDEN=1 rewrites it)');
    const back = parse(text) as Record<string, any>;
    assert.deepEqual(back, JSON.parse(JSON.stringify(config)));
    assert.equal(back.exporters['otlp_http/hub'].headers.Authorization, 'Bearer ${env:SF_OBSERVE_HUB_CREDENTIAL}');
    assert.equal(back.exporters['otlp_http/honeycomb'].headers['x-honeycomb-team'], '${env:SF_OBSERVE_HONEYCOMB_X_HONEYCOMB_TEAM}');
    assert.equal(back.exporters['otlp_http/honeycomb'].encoding, 'json');
    assert.equal(back.exporters['otlp_http/hub'].sending_queue.storage, 'file_storage/queue');
    assert.equal(back.exporters['file/local'].format, 'json');
    assert.deepEqual(back.service.pipelines.logs.processors, ['memory_limiter', 'redaction', 'batch']);
    assert.deepEqual(back.service.pipelines.traces.exporters, ['otlp_http/hub', 'otlp_http/honeycomb', 'file/local']);
    assert.deepEqual(env, [
      { name: 'SF_OBSERVE_HUB_CREDENTIAL', from: { file: '/home/me/.sf/credentials/hub' } },
      { name: 'SF_OBSERVE_HONEYCOMB_X_HONEYCOMB_TEAM', from: { env: 'HONEYCOMB_KEY' } },
    ]);
    assert.deepEqual(checkCollectorConfig(back), []);
  });

  it('merges user fragments like otelcol (maps merge, lists replace) and flags a pipeline that loses redaction', () => {
    const managed = renderCollectorConfig(buildCollectorConfig({ receiverPort: 1, storageDir: '/s', destinations: DESTINATIONS }).config);
    const addDebug = 'exporters:\n  debug: {verbosity: basic}\nservice:\n  pipelines:\n    logs:\n      exporters: [otlp_http/hub, debug]\n';
    const { merged, diagnostics } = mergeCollectorYaml([{ file: 'managed.yaml', text: managed }, { file: 'conf.d/10-debug.yaml', text: addDebug }]);
    assert.deepEqual(diagnostics, []);
    const m = merged as Record<string, any>;
    assert.deepEqual(m.service.pipelines.logs.exporters, ['otlp_http/hub', 'debug']);
    assert.deepEqual(m.service.pipelines.logs.processors, ['memory_limiter', 'redaction', 'batch']);
    assert.ok(m.exporters['otlp_http/hub'] && m.exporters.debug);
    assert.deepEqual(checkCollectorConfig(m), []);
    const noRedaction = mergeCollectorYaml([{ file: 'managed.yaml', text: managed }, { file: 'conf.d/x.yaml', text: 'service:\n  pipelines:\n    logs:\n      processors: [batch]\n      exporters: [nope]\n' }]);
    const codes = checkCollectorConfig(noRedaction.merged).map((d) => `${d.severity}:${d.code}`);
    assert.deepEqual(codes.sort(), ['error:SF_COLLECTOR_UNDEFINED', 'warning:SF_COLLECTOR_REDACTION_OFF']);
    assert.equal(mergeCollectorYaml([{ file: 'bad.yaml', text: 'a: [' }]).diagnostics[0].code, 'SF_COLLECTOR_YAML');
  });

  it('verifies archives against the pinned manifest and the installed binary against its record', async () => {
    const tmp = await tempDir('sf-otelcol-');
    try {
      const src = join(tmp.path, 'src');
      await mkdir(src);
      await writeFile(join(src, 'otelcol-contrib'), FAKE_COLLECTOR, { mode: 0o755 });
      await writeFile(join(src, 'README.md'), 'fake\n');
      const archive = join(tmp.path, 'otelcol-contrib_0.159.0_linux_amd64.tar.gz');
      execFileSync('tar', ['-czf', archive, '-C', src, 'otelcol-contrib', 'README.md']);
      const manifest: CollectorManifest = { ...PINNED_COLLECTOR, archives: { linux_amd64: { ...PINNED_COLLECTOR.archives.linux_amd64, sha256: await sha256File(archive) } } };
      assert.equal(await verifyCollectorArchive(archive, manifest, 'linux_amd64'), manifest.archives.linux_amd64.sha256);
      // the real pin rejects this (fake) archive
      await assert.rejects(verifyCollectorArchive(archive, PINNED_COLLECTOR, 'linux_amd64'), (e) => e instanceof SfError && e.code === 'SF_E_HASH_MISMATCH');
      await assert.rejects(verifyCollectorArchive(archive, manifest, 'plan9_mips'), (e) => e instanceof SfError && e.code === 'SF_E_NOT_FOUND');
      const layout = collectorLayout(join(tmp.path, 'collector'));
      const record = await installCollectorFromArchive(archive, join(layout.dir, 'bin'), layout.installRecord, manifest, 'linux_amd64');
      assert.equal(record.binarySha256, await sha256File(join(src, 'otelcol-contrib')));
      assert.deepEqual(await verifyInstalledCollector(layout.installRecord, manifest), record);
      await writeFile(record.binary, FAKE_COLLECTOR + '// tampered\n');
      // the hints name the command that reinstalls a collector (`sf observe update` only rewrites host configs)
      const reinstall = (e: unknown) => e instanceof SfError && /sf observe install --collector-archive/.test(e.hint ?? '') && !/observe update/.test(e.hint ?? '');
      await assert.rejects(verifyInstalledCollector(layout.installRecord, manifest), (e) => e instanceof SfError && e.code === 'SF_E_HASH_MISMATCH' && reinstall(e));
      await assert.rejects(verifyInstalledCollector(layout.installRecord, { ...manifest, version: '0.160.0' }), (e) => e instanceof SfError && e.code === 'SF_E_CONFLICT' && reinstall(e));
      assert.equal(platformKey('linux', 'x64'), 'linux_amd64');
      assert.equal(platformKey('darwin', 'arm64'), 'darwin_arm64');
    } finally {
      await tmp.cleanup();
    }
  });

  it('collector mode: the observer runs the verified collector with the managed config + fragments and exports only to it', async () => {
    const tmp = await tempDir('sf-otelcol-run-');
    try {
      const home = join(tmp.path, 'home');
      const src = join(tmp.path, 'src');
      await mkdir(src);
      await writeFile(join(src, 'otelcol-contrib'), FAKE_COLLECTOR);
      await chmod(join(src, 'otelcol-contrib'), 0o755);
      const archive = join(tmp.path, 'a.tar.gz');
      execFileSync('tar', ['-czf', archive, '-C', src, 'otelcol-contrib']);
      const platform = platformKey();
      const manifest: CollectorManifest = { ...PINNED_COLLECTOR, archives: { [platform]: { name: 'a.tar.gz', url: 'file:///none', sha256: await sha256File(archive) } } };
      const layout = collectorLayout(join(home, 'collector'));
      await installCollectorFromArchive(archive, join(layout.dir, 'bin'), layout.installRecord, manifest, platform);
      await mkdir(layout.fragments, { recursive: true });
      await writeFile(join(layout.fragments, '50-mine.yaml'), 'processors:\n  batch: {timeout: 1s}\n');
      await writeFile(join(tmp.path, 'hub-credential'), 'sfd_from_file\n', { mode: 0o600 });
      const port = await freePort();
      const config: ObserveConfig = {
        ...DEFAULT_OBSERVE_CONFIG, batch: { maxRecords: 10, delayMs: 10 },
        collector: { enabled: true, port },
        destinations: [{ name: 'hub', type: 'hub', endpoint: 'https://hub.example.com', credential: { file: join(tmp.path, 'hub-credential') } }],
      };
      const observer = await startObserver({ env: { SF_HOME: home, HOME: tmp.path, PATH: process.env.PATH }, port: 0, config, collectorManifest: manifest, retry: { baseBackoffMs: 50, maxBackoffMs: 200 } });
      try {
        assert.equal(observer.status().mode, 'collector', observer.status().collectorProblem);
        const body = await readFile(join(fixturesDir, 'host-otlp', 'claude-tool-details', 'logs.json'));
        await fetch(`${observer.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const lines = await waitFor(async () => {
          const text = await readFile(join(layout.dir, 'fake-received.jsonl'), 'utf8').catch(() => '');
          const parsed = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
          return parsed.some((l) => l.path === '/v1/logs') ? parsed : undefined;
        }, 20_000, 'the collector to receive logs');
        const start = lines.find((l) => l.started)!;
        assert.deepEqual(start.args, [`--config=file:${layout.managed}`, `--config=file:${join(layout.fragments, '50-mine.yaml')}`]);
        assert.equal(start.hubCredential, 'sfd_from_file', 'the credential reaches the collector only through its environment');
        assert.equal(lines.find((l) => l.path === '/v1/logs')!.type, 'application/x-protobuf');
        assert.ok(!(await readFile(layout.managed, 'utf8')).includes('sfd_from_file'));
        assert.deepEqual(observer.status().destinations.map((d) => d.name), ['collector']);
      } finally {
        await observer.close();
      }
      // a tampered binary: the observer falls back to its own fan-out and says why
      await writeFile(join(layout.dir, 'bin', 'otelcol-contrib'), FAKE_COLLECTOR + '//x\n');
      const fallback = await startObserver({ env: { SF_HOME: home, HOME: tmp.path }, port: 0, config, collectorManifest: manifest });
      try {
        assert.equal(fallback.status().mode, 'fanout');
        assert.match(fallback.status().collectorProblem ?? '', /changed since Forge installed it/);
      } finally {
        await fallback.close();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});
