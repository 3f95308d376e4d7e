import assert from 'node:assert/strict';
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse } from 'jsonc-parser';
import type { MockServer } from '../../test-support/hosts/mock-server.js';
import { startMockOpenAI } from '../../test-support/hosts/mock-openai.js';
import { hostBinary, runHost } from '../../test-support/hosts/run-host.js';
import { installTwoSkillSkit, type HostSandbox } from '../../test-support/hosts/skit-install.js';

/** The user's own project config (JSONC, comments) pointing OpenCode at the mock model. */
const userConfig = (mockUrl: string) => `{
  "$schema": "https://opencode.ai/config.json",
  // local mock provider; no network
  "autoupdate": false,
  "share": "disabled",
  "model": "mock/mock-model",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Mock",
      "options": { "baseURL": "${mockUrl}/v1", "apiKey": "dummy" },
      "models": { "mock-model": { "name": "Mock model", "tool_call": true } }
    }
  }
}
`;

/** Tool messages (results) of a chat request, in order. */
const toolMessages = (body: any): string[] => (body?.messages ?? []).filter((m: any) => m.role === 'tool').map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

/** Runs `opencode run` in the sandbox against the mock; returns the chat requests and OpenCode's log. */
async function runOpenCode(box: HostSandbox, mock: MockServer): Promise<{ turns: any[]; log: string }> {
  const bin = hostBinary('opencode-ai/bin/opencode.exe', 'opencode-ai');
  // OpenCode's skill tool shells out to ripgrep; the Codex package ships one
  const rg = hostBinary('@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex-path/rg', '@openai/codex');
  const run = await runHost(bin, ['run', '--print-logs', '--format', 'json', 'Use the review skill, then the summarize skill.'], {
    cwd: box.project, home: box.home, timeoutMs: 60_000, path: `${dirname(rg)}:/usr/bin:/bin`,
    env: {
      OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      // OpenCode installs @opencode-ai/plugin into config dirs in the background: keep that on 127.0.0.1 too
      npm_config_registry: `${mock.url}/npm/`, NPM_CONFIG_REGISTRY: `${mock.url}/npm/`, BUN_CONFIG_REGISTRY: `${mock.url}/npm/`,
    },
  });
  const debug = `exit ${run.code}/${run.signal}\nrequests: ${mock.requests.map((r) => r.path).join(', ')}\n${run.stderr.slice(-3000)}`;
  assert.equal(run.code, 0, debug);
  return { turns: mock.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body), log: run.stderr };
}

/** The model saw `review` once and no `summarize`; loading review worked and summarize was denied. */
function assertEnabledLoadsDisabledDenied(box: HostSandbox, mock: MockServer, turns: any[]): void {
  const first = turns.find((b) => (b?.tools ?? []).some((x: any) => x.function?.name === 'skill'));
  assert.ok(first, 'the skill tool was offered');
  const system = JSON.stringify(first.messages.filter((m: any) => m.role === 'system'));
  const listing = /<available_skills>.*?<\/available_skills>/s.exec(system)?.[0] ?? '';
  assert.equal(listing.match(/<name>review<\/name>/g)?.length, 1, `the enabled skill is listed once: ${listing}`);
  assert.doesNotMatch(listing, /summarize/, 'the disabled skill is not listed to the model');
  const results = toolMessages(turns[turns.length - 1]);
  assert.equal(results.length, 2, `two skill calls answered: ${JSON.stringify(results)}`);
  assert.ok(results[0].includes('<skill_content name="review">') && results[0].includes(box.enabledMarker), `review loaded: ${results[0]}`);
  assert.match(results[1], /prevents you from using this specific tool call/, `summarize denied: ${results[1]}`);
  assert.ok(!mock.requests.some((r) => JSON.stringify(r.body ?? '').includes(box.disabledMarker)), 'the disabled body never reaches the model');
}

describe('OpenCode (real binary, offline mock model)', function () {
  this.timeout(90_000);
  let box: HostSandbox | undefined;
  let mock: MockServer | undefined;
  afterEach(async () => {
    await mock?.close();
    await box?.cleanup();
  });

  it('loads the enabled child and denies the disabled one after sf add skit + sf skit disable', async () => {
    const m = (mock = await startMockOpenAI(['review', 'summarize']));
    const b = (box = await installTwoSkillSkit('opencode', ({ project }) => writeFile(join(project, 'opencode.json'), userConfig(m.url))));
    const config = readFileSync(join(b.project, 'opencode.json'), 'utf8');
    assert.match(config, /\/\/ local mock provider; no network/, 'the user\'s comment survives the merge');
    assert.deepEqual(parse(config).permission, { skill: { summarize: 'deny' } });
    assert.ok(lstatSync(join(b.project, '.opencode/skills/summarize')).isSymbolicLink(), 'the disabled child stays projected');
    assertEnabledLoadsDisabledDenied(b, m, (await runOpenCode(b, m)).turns);
  });

  it('with Claude Code projected in the same project, OpenCode still registers each skill once and keeps the disabled one denied', async () => {
    const m = (mock = await startMockOpenAI(['review', 'summarize']));
    const b = (box = await installTwoSkillSkit('claude-code,opencode', ({ project }) => writeFile(join(project, 'opencode.json'), userConfig(m.url))));
    assert.ok(lstatSync(join(b.project, '.claude/skills/review')).isSymbolicLink(), 'Claude Code has its own projection, which OpenCode also scans');
    const { turns, log } = await runOpenCode(b, m);
    assertEnabledLoadsDisabledDenied(b, m, turns);
    assert.match(log, /duplicate skill name/, 'OpenCode noticed the second copy and kept one');
    // which copy wins depends on OpenCode's concurrent scan; both are links to the same store entry
    assert.equal(realpathSync(join(b.project, '.claude/skills/review')), realpathSync(join(b.project, '.opencode/skills/review')));
  });
});
