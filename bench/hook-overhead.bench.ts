import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { startMockAnthropic } from '../test-support/hosts/mock-anthropic.js';
import { startMockOpenAI } from '../test-support/hosts/mock-openai.js';
import { freePort, startObserverDaemon, type DaemonProcess } from '../test-support/hosts/observe.js';
import { hostBinary, runHost } from '../test-support/hosts/run-host.js';
import { installTwoSkillSkit, type HostSandbox } from '../test-support/hosts/skit-install.js';
import { median, ms, ratio, report, timeIt } from './support.js';

/**
 * Per-call overhead that Forge's observability adds to a real host, measured in the same run:
 * the same offline host command (mock model on 127.0.0.1, one skill activation) with and without
 * what `sf observe install` put in place, runs interleaved, medians. Hosts run with only
 * PATH/HOME/TERM and their own settings, so NODE_EXTRA_CA_CERTS is never set for them.
 *   - Claude Code: no Forge settings | telemetry env only | env + a no-op hook | env + the Skill hook (full)
 *   - OpenCode: without | with the Forge plugin
 *   - the Claude hook process alone (bash), observer up and observer down (spool path)
 * Codex gets no hook or plugin (only the [otel] config table), so it has nothing per call to measure.
 * Targets: <= 1.05x wall time per host command; < 30 ms for the hook process.
 * SF_BENCH_HOSTS=claude skips the (slow) OpenCode part.
 */

/** interleaved runs per variant: Claude -p takes about half a second here, opencode run about five */
const CLAUDE_RUNS = 15;
const OPENCODE_RUNS = 4;
const HOOK_RUNS = 30;

async function interleaved(variants: Record<string, () => Promise<unknown>>, runs: number): Promise<Record<string, number>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (const run of Object.values(variants)) await run(); // warm-up: caches, plugin compilation
  for (let i = 0; i < runs; i++) for (const [k, run] of Object.entries(variants)) times[k].push(await timeIt(run));
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

async function installed(agent: string, box: HostSandbox, port: number): Promise<void> {
  await box.sf(['observe', 'install', '--yes', '--no-service', '--agents', agent, '--port', String(port), '--destination', `file:${join(box.root, 'obs.jsonl')}`]);
}

async function claude(rows: [string, string][]): Promise<void> {
  const bin = hostBinary('@anthropic-ai/claude-code/bin/claude.exe', '@anthropic-ai/claude-code');
  const mock = await startMockAnthropic(['review']);
  const box = await installTwoSkillSkit('claude-code', undefined, { disable: false });
  let daemon: DaemonProcess | undefined;
  try {
    const settings = join(box.home, '.claude', 'settings.json');
    const port = await freePort();
    await installed('claude-code', box, port);
    const full = JSON.parse(readFileSync(settings, 'utf8'));
    const envOnly = { env: full.env };
    // the same settings with a hook that does nothing: what Claude's own hook dispatch costs
    const noopHook = { ...full, hooks: { PreToolUse: [{ matcher: 'Skill', hooks: [{ type: 'command', command: 'true' }] }] } };
    daemon = await startObserverDaemon({ HOME: box.home, SF_HOME: box.sfHome });
    const run = (content: unknown) => async () => {
      await writeFile(settings, JSON.stringify(content, null, 2));
      const r = await runHost(bin, ['-p', 'Please review my change.', '--allowedTools', 'Skill', '--model', 'claude-sonnet-4-5'], {
        cwd: box.project, home: box.home, timeoutMs: 60_000,
        env: { ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'dummy', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_ERROR_REPORTING: '1' },
      });
      if (r.code !== 0) throw new Error(`claude exited ${r.code}: ${r.stderr.slice(0, 500)}`);
    };
    const t = await interleaved({ none: run({}), env: run(envOnly), noop: run(noopHook), full: run(full) }, CLAUDE_RUNS);
    rows.push(['claude -p, no Forge settings', ms(t.none)]);
    rows.push(['claude -p, telemetry env only', `${ms(t.env)}  ${ratio(t.env, t.none, 1.05)}`]);
    rows.push(['claude -p, env + Skill hook (full)', `${ms(t.full)}  ${ratio(t.full, t.none, 1.05)}`]);
    rows.push(['  the hook alone (full vs env only)', ratio(t.full, t.env, 1.05)]);
    rows.push(['claude -p, env + a no-op hook (`true`)', `${ms(t.noop)}  ${ratio(t.noop, t.none)}`]);
    rows.push(['  Forge\'s hook vs the no-op hook', `${ratio(t.full, t.noop, 1.05)}  (${ms(t.full - t.noop)} per Skill call)`]);
    await hookAlone(rows, join(box.sfHome, 'observe', 'hooks', 'claude-code-skill.sh'), box, daemon);
  } finally {
    await daemon?.stop();
    await mock.close();
    await box.cleanup();
  }
}

function runScript(script: string, input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', script], { stdio: ['pipe', 'ignore', 'ignore'], env: { PATH: process.env.PATH } });
    child.on('error', reject);
    child.on('close', () => resolve());
    child.stdin.end(input);
  });
}

async function hookAlone(rows: [string, string][], script: string, box: HostSandbox, daemon: DaemonProcess): Promise<void> {
  const input = JSON.stringify({ session_id: 'bench-session', transcript_path: '/tmp/t', cwd: box.project, hook_event_name: 'PreToolUse', tool_name: 'Skill', tool_input: { skill: 'review' }, tool_use_id: 'toolu_bench' });
  const times = async () => {
    const t: number[] = [];
    for (let i = 0; i < HOOK_RUNS; i++) t.push(await timeIt(() => runScript(script, input)));
    return median(t);
  };
  const noop = [] as number[];
  for (let i = 0; i < HOOK_RUNS; i++) noop.push(await timeIt(() => runScript('cat >/dev/null', input)));
  const up = await times();
  await daemon.stop();
  const down = await times();
  rows.push(['shell baseline (sh -c "cat")', ms(median(noop))]);
  rows.push(['hook process, observer up', `${ms(up)}  (target < 30 ms: ${up < 30 ? 'met' : 'NOT met'}; ${ratio(up, median(noop))} the shell baseline)`]);
  rows.push(['hook process, observer down (spools)', `${ms(down)}  (target < 30 ms: ${down < 30 ? 'met' : 'NOT met'})`]);
}

async function opencode(rows: [string, string][]): Promise<void> {
  const bin = hostBinary('opencode-ai/bin/opencode.exe', 'opencode-ai');
  const rg = hostBinary('@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex-path/rg', '@openai/codex');
  const mock = await startMockOpenAI(['review']);
  const config = { autoupdate: false, share: 'disabled', model: 'mock/mock-model', provider: { mock: { npm: '@ai-sdk/openai-compatible', name: 'Mock', options: { baseURL: `${mock.url}/v1`, apiKey: 'dummy' }, models: { 'mock-model': { name: 'Mock', tool_call: true } } } } };
  const box = await installTwoSkillSkit('opencode', ({ project }) => writeFile(join(project, 'opencode.json'), JSON.stringify(config)), { disable: false });
  let daemon: DaemonProcess | undefined;
  try {
    await installed('opencode', box, await freePort());
    daemon = await startObserverDaemon({ HOME: box.home, SF_HOME: box.sfHome });
    const plugin = join(box.home, '.config', 'opencode', 'plugins', 'forge-observe.js');
    const parked = join(box.root, 'forge-observe.js.parked');
    let active = true;
    const run = (withPlugin: boolean) => async () => {
      if (withPlugin !== active) {
        await mkdir(dirname(plugin), { recursive: true });
        await rename(withPlugin ? parked : plugin, withPlugin ? plugin : parked);
        active = withPlugin;
      }
      const r = await runHost(bin, ['run', 'Please review my change.'], {
        cwd: box.project, home: box.home, timeoutMs: 60_000, path: `${dirname(rg)}:/usr/bin:/bin`,
        env: { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1', npm_config_registry: `${mock.url}/npm/`, BUN_CONFIG_REGISTRY: `${mock.url}/npm/` },
      });
      if (r.code !== 0) throw new Error(`opencode exited ${r.code}: ${r.stderr.slice(-500)}`);
    };
    const t = await interleaved({ without: run(false), with: run(true) }, OPENCODE_RUNS);
    rows.push(['opencode run, without the plugin', ms(t.without)]);
    rows.push(['opencode run, with the Forge plugin', `${ms(t.with)}  ${ratio(t.with, t.without, 1.05)}`]);
  } finally {
    await daemon?.stop();
    await mock.close();
    await box.cleanup();
  }
}

export default {
  name: 'observability: per-call overhead of Forge hooks and plugins on real hosts',
  async run(): Promise<void> {
    const rows: [string, string][] = [];
    await claude(rows);
    if (process.env.SF_BENCH_HOSTS !== 'claude') await opencode(rows);
    rows.push(['codex', 'no hook or plugin installed ([otel] config only): nothing per call']);
    report(rows);
  },
};
