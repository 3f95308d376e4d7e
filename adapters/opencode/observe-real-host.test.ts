import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { startMockOpenAI } from '../../test-support/hosts/mock-openai.js';
import type { MockServer } from '../../test-support/hosts/mock-server.js';
import { expectActivation, expectDisableLinked, startStage2, type Stage2 } from '../../test-support/hosts/observe-stage2.js';
import { hostBinary, runHost } from '../../test-support/hosts/run-host.js';
import { installTwoSkillSkit, type HostSandbox } from '../../test-support/hosts/skit-install.js';

const PROMPT = 'Please review my change with the review skill.';

/** The user's own project config pointing OpenCode at the mock model. */
const userConfig = (mockUrl: string) => JSON.stringify({
  $schema: 'https://opencode.ai/config.json', autoupdate: false, share: 'disabled', model: 'mock/mock-model',
  provider: { mock: { npm: '@ai-sdk/openai-compatible', name: 'Mock', options: { baseURL: `${mockUrl}/v1`, apiKey: 'dummy' }, models: { 'mock-model': { name: 'Mock model', tool_call: true } } } },
}, null, 2);

describe('OpenCode observability, Stage 2 (real binary, offline mock model)', function () {
  this.timeout(90_000);
  let box: HostSandbox | undefined;
  let mock: MockServer | undefined;
  let stage: Stage2 | undefined;
  after(async () => {
    await stage?.stop();
    await mock?.close();
    await box?.cleanup();
  });

  it('sf observe install -> the Forge plugin reports one skill activation to the file and the OTLP receiver, then sf skit disable links to it', async () => {
    const bin = hostBinary('opencode-ai/bin/opencode.exe', 'opencode-ai');
    // OpenCode's skill tool shells out to ripgrep; the Codex package ships one
    const rg = hostBinary('@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex-path/rg', '@openai/codex');
    const m = (mock = await startMockOpenAI(['review']));
    box = await installTwoSkillSkit('opencode', ({ project }) => writeFile(join(project, 'opencode.json'), userConfig(m.url)), { disable: false });
    stage = await startStage2(box, 'opencode');
    const plugin = readFileSync(join(box.home, '.config/opencode/plugins/forge-observe.js'), 'utf8');
    assert.ok(plugin.includes(`http://127.0.0.1:${stage.port}/forge/v1/events`));

    const run = await runHost(bin, ['run', '--print-logs', '--format', 'json', PROMPT], {
      cwd: box.project, home: box.home, timeoutMs: 60_000, path: `${dirname(rg)}:/usr/bin:/bin`,
      env: {
        OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        npm_config_registry: `${m.url}/npm/`, NPM_CONFIG_REGISTRY: `${m.url}/npm/`, BUN_CONFIG_REGISTRY: `${m.url}/npm/`,
      },
    });
    assert.equal(run.code, 0, `opencode exit ${run.code}/${run.signal}\n${run.stderr.slice(-3000)}`);
    const sessionId = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => typeof e.sessionID === 'string')?.sessionID as string | undefined;
    assert.ok(sessionId, 'OpenCode reported its session id');
    assert.ok(m.requests.some((r) => JSON.stringify(r.body ?? '').includes(box!.enabledMarker)), 'the review skill body reached the model');

    const inventory = JSON.parse(await box.sf(['skit', 'list', '--json']))[0];
    const review = inventory.skills.find((s: { name: string }) => s.name === 'review');
    const activation = await expectActivation(stage, {
      skillId: 'local/kit:review', skitId: 'local/kit', contentHash: review.hash, bundleHash: inventory.bundleHash,
      host: 'opencode', sessionId, trigger: 'implicit', fidelity: { selected: 'exact', loaded: 'exact' }, resolution: 'exact_path', registered: true,
      forbidden: [PROMPT, box.enabledMarker, box.disabledMarker, 'skill_content', box.project],
    });
    await expectDisableLinked(stage, 'local/kit:review', activation, 'opencode');
  });
});
