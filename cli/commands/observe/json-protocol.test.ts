import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, tempDir } from '../../../test-support/index.js';

type Finding = { code: string; severity: string; message: string; file?: string };

/**
 * OTLP/JSON is an encoding the observer reads as well as protobuf: a user who switches Claude
 * Code's or Codex's exporter to it, same endpoint, has a working setup. doctor and update say so
 * as info, never as an error (and never "does not send to the observer"); grpc or another
 * endpoint still is one.
 */
describe('sf observe doctor / update: hosts switched to OTLP/JSON', function () {
  this.timeout(60_000);

  it('Claude Code http/json and Codex protocol = "json" at the observer: info, update exits 0; grpc stays an error', async () => {
    const tmp = await tempDir('sf-observe-json-');
    try {
      const home = join(tmp.path, 'home');
      await mkdir(join(home, '.claude'), { recursive: true });
      await mkdir(join(home, '.codex'), { recursive: true });
      const claude = join(home, '.claude', 'settings.json');
      const codex = join(home, '.codex', 'config.toml');
      await writeFile(claude, '{}\n');
      await writeFile(codex, 'model = "o3"\n');
      const env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', PATH: '/usr/bin:/bin' };
      const sf = (args: string[]) => runSf(args, { env, cwd: tmp.path });
      assert.equal((await sf(['observe', 'install', '--yes', '--no-service', '--agents', 'claude-code,codex', '--port', '14600'])).code, 0);
      await writeFile(claude, (await readFile(claude, 'utf8')).replace('"http/protobuf"', '"http/json"'));
      await writeFile(codex, (await readFile(codex, 'utf8')).replaceAll('protocol = "binary"', 'protocol = "json"'));
      const hostFindings = async () => (JSON.parse((await sf(['observe', 'doctor', '--json'])).stdout).diagnostics as Finding[]).filter((d) => d.file === claude || d.file === codex);

      const found = await hostFindings();
      assert.deepEqual(found.filter((d) => d.severity === 'error'), [], JSON.stringify(found, null, 2));
      const text = found.map((d) => `${d.severity} ${d.code} ${d.message}`).join('\n');
      assert.match(text, /info SF_OBSERVE_USER_VALUE Claude Code: "env\.OTEL_EXPORTER_OTLP_PROTOCOL" in .* is "http\/json", not Forge's "http\/protobuf"; the observer accepts that as well/);
      assert.match(text, /info SF_OBSERVE_USER_VALUE Codex: "exporter" .* \(json\) .*the observer on port 14600 reads that encoding as well, so Codex still sends it this telemetry/);
      assert.doesNotMatch(text, /does not send/);

      const update = await sf(['observe', 'update', '--json']);
      assert.equal(update.code, 0, update.stdout);
      const agents = JSON.parse(update.stdout).agents as { agent: string; status: string; diagnostics: Finding[] }[];
      assert.deepEqual(agents.map((a) => a.status), ['applied', 'applied']);
      assert.ok(agents.flatMap((a) => a.diagnostics).every((d) => d.severity === 'info'), JSON.stringify(agents));
      assert.match(await readFile(claude, 'utf8'), /"http\/json"/, 'the user\'s value stays');
      assert.match(await readFile(codex, 'utf8'), /protocol = "json"/);
      // still no error once update let go of the value
      assert.deepEqual((await hostFindings()).filter((d) => d.severity === 'error'), []);

      // an encoding the observer does not speak, or another endpoint, is still an error
      await writeFile(claude, (await readFile(claude, 'utf8')).replace('"http/json"', '"grpc"'));
      await writeFile(codex, (await readFile(codex, 'utf8')).replace('127.0.0.1:14600/v1/logs", protocol = "json"', '127.0.0.1:9999/v1/logs", protocol = "json"'));
      const bad = (await hostFindings()).filter((d) => d.severity === 'error').map((d) => d.message).join('\n');
      assert.match(bad, /OTEL_EXPORTER_OTLP_PROTOCOL" is "grpc"/);
      assert.match(bad, /Codex: "exporter" .*127\.0\.0\.1:9999.*so Codex does not send this telemetry to the observer on port 14600/);
    } finally {
      await tmp.cleanup();
    }
  });

  it('a user who already had http/json set installs without a conflict', async () => {
    const tmp = await tempDir('sf-observe-json-pre-');
    try {
      const home = join(tmp.path, 'home');
      await mkdir(join(home, '.claude'), { recursive: true });
      const claude = join(home, '.claude', 'settings.json');
      await writeFile(claude, '{\n  "env": {\n    "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"\n  }\n}\n');
      const env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', PATH: '/usr/bin:/bin' };
      const r = await runSf(['observe', 'install', '--yes', '--no-service', '--agents', 'claude-code', '--json'], { env, cwd: tmp.path });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal(JSON.parse(r.stdout).agents[0].status, 'applied');
      const settings = JSON.parse(await readFile(claude, 'utf8')) as { env: Record<string, string> };
      assert.equal(settings.env.OTEL_EXPORTER_OTLP_PROTOCOL, 'http/json');
      assert.equal(settings.env.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://127.0.0.1:14318');
    } finally {
      await tmp.cleanup();
    }
  });
});
