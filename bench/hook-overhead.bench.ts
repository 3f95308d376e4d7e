import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { claudeSessionCwd } from '../core/observer/claude-sessions.js';
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
 *   - Claude Code: no Forge settings | the full install (the telemetry env block; no hook runs in
 *     Claude: the observer registers sessions from Claude's transcripts), observer up; then the
 *     observer-side transcript lookup, once per new session and off the host's path
 *   - OpenCode: without | with the Forge plugin
 * Codex gets no hook or plugin (only the [otel] config table), so it has nothing per call to measure.
 * Target: <= 1.05x wall time per host command.
 * SF_BENCH_HOSTS=claude skips the (slow) OpenCode part.
 */

/** interleaved runs per variant: Claude -p takes about half a second here, opencode run about five */
const CLAUDE_RUNS = 25;
const OPENCODE_RUNS = 4;
const LOOKUP_RUNS = 30;
/** project directories in the Claude config dir for the lookup figure (one transcript each) */
const LOOKUP_PROJECTS = 500;

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
    if (full.hooks !== undefined) throw new Error(`sf observe install put hooks into ${settings}; this bench measures the hook-free install`);
    daemon = await startObserverDaemon({ HOME: box.home, SF_HOME: box.sfHome });
    const run = (content: unknown) => async () => {
      await writeFile(settings, JSON.stringify(content, null, 2));
      const r = await runHost(bin, ['-p', 'Please review my change.', '--allowedTools', 'Skill', '--model', 'claude-sonnet-4-5'], {
        cwd: box.project, home: box.home, timeoutMs: 60_000,
        env: { ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'dummy', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_ERROR_REPORTING: '1' },
      });
      if (r.code !== 0) throw new Error(`claude exited ${r.code}: ${r.stderr.slice(0, 500)}`);
    };
    const t = await interleaved({ none: run({}), full: run(full) }, CLAUDE_RUNS);
    rows.push(['claude -p, no Forge settings', ms(t.none)]);
    rows.push(['claude -p, full install (telemetry env, no hook)', `${ms(t.full)}  ${ratio(t.full, t.none, 1.05)}`]);
    // the full runs did the real work: their sessions were registered from the transcripts
    const status = JSON.parse(await box.sf(['observe', 'status', '--json']));
    rows.push(['  sessions registered from transcripts', `${status.observer.sessions} of ${CLAUDE_RUNS + 1} runs with the install`]);
    await transcriptLookup(rows);
  } finally {
    await daemon?.stop();
    await mock.close();
    await box.cleanup();
  }
}

/** The observer's transcript lookup for a new session, in a config dir with many projects. */
async function transcriptLookup(rows: [string, string][]): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-bench-claude-'));
  try {
    const id = (n: number) => `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`;
    for (let i = 0; i < LOOKUP_PROJECTS; i++) {
      const project = join(dir, 'projects', `-work-project-${i}`);
      await mkdir(project, { recursive: true });
      await writeFile(join(project, `${id(i)}.jsonl`), JSON.stringify({ type: 'user', sessionId: id(i), cwd: `/work/project/${i}` }) + '\n');
    }
    const time = async (sessionId: string) => {
      const t: number[] = [];
      for (let i = 0; i < LOOKUP_RUNS; i++) t.push(await timeIt(() => claudeSessionCwd(dir, sessionId)));
      return median(t);
    };
    const last = await time(id(LOOKUP_PROJECTS - 1));
    const miss = await time(id(LOOKUP_PROJECTS + 1));
    rows.push([`transcript lookup, ${LOOKUP_PROJECTS} projects (observer side, once per new session)`, `${ms(last)} found, ${ms(miss)} not (yet) there`]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
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
  name: 'observability: per-call overhead of Forge\'s host settings and plugins on real hosts',
  async run(): Promise<void> {
    const rows: [string, string][] = [];
    await claude(rows);
    if (process.env.SF_BENCH_HOSTS !== 'claude') await opencode(rows);
    rows.push(['codex', 'no hook or plugin installed ([otel] config only): nothing per call']);
    report(rows);
  },
};
