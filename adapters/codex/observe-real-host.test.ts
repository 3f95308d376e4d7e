import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startMockOpenAI } from '../../test-support/hosts/mock-openai.js';
import type { MockServer } from '../../test-support/hosts/mock-server.js';
import { expectActivation, expectDisableLinked, startStage2, type Stage2 } from '../../test-support/hosts/observe-stage2.js';
import { hostBinary, runHost } from '../../test-support/hosts/run-host.js';
import { codexUserConfig as userConfig } from '../../test-support/hosts/codex-config.js';
import { installTwoSkillSkit, type HostSandbox } from '../../test-support/hosts/skit-install.js';

const PROMPT = 'Use $review on my change, please.';

describe('Codex observability, Stage 2 (real binary, offline mock model)', function () {
  this.timeout(90_000);
  let box: HostSandbox | undefined;
  let mock: MockServer | undefined;
  let stage: Stage2 | undefined;
  after(async () => {
    await stage?.stop();
    await mock?.close();
    await box?.cleanup();
  });

  it('sf observe install -> one explicit skill activation in the file and the OTLP receiver, then sf skit disable links to it', async () => {
    const bin = hostBinary('@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex', '@openai/codex');
    const m = (mock = await startMockOpenAI([]));
    let written = '';
    box = await installTwoSkillSkit('codex', async ({ home, project }) => {
      await mkdir(join(home, '.codex'), { recursive: true });
      written = userConfig(m.url, project);
      await writeFile(join(home, '.codex/config.toml'), written);
    }, { disable: false });
    stage = await startStage2(box, 'codex');
    const config = readFileSync(join(box.home, '.codex/config.toml'), 'utf8');
    assert.ok(config.startsWith(written), 'the user\'s config is kept byte for byte; Forge appended its [otel] table');
    assert.match(config, new RegExp(`# managed by sf: observe\\n\\[otel\\]\\nlog_user_prompt = false\\nexporter = \\{ otlp-http = \\{ endpoint = "http://127.0.0.1:${stage.port}/v1/logs"`));

    const run = await runHost(bin, ['exec', '--skip-git-repo-check', '--json', '-s', 'read-only', PROMPT], {
      cwd: box.project, home: box.home, timeoutMs: 60_000, env: { CODEX_HOME: join(box.home, '.codex'), MOCK_API_KEY: 'dummy' },
    });
    assert.equal(run.code, 0, `codex exit ${run.code}/${run.signal}\n${run.stderr.slice(0, 2000)}`);
    const threadId = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.type === 'thread.started')?.thread_id as string | undefined;
    assert.ok(m.requests.some((r) => JSON.stringify(r.body ?? '').includes(box!.enabledMarker)), '$review injected the skill body into the model request');

    const inventory = JSON.parse(await box.sf(['skit', 'list', '--json']))[0];
    const review = inventory.skills.find((s: { name: string }) => s.name === 'review');
    const activation = await expectActivation(stage, {
      skillId: 'local/kit:review', skitId: 'local/kit', contentHash: review.hash, bundleHash: inventory.bundleHash,
      host: 'codex', sessionId: threadId, trigger: 'explicit',
      // Codex reports the selection itself; the load result is joined from the codex.skill.injected metric
      fidelity: { selected: 'exact', loaded: 'derived' }, resolution: 'name_and_scope',
      // registered by the observer from Codex's own rollout record of the conversation's cwd
      registered: true,
      forbidden: [PROMPT, box.enabledMarker, box.disabledMarker, box.project],
    });
    await expectDisableLinked(stage, 'local/kit:review', activation, 'codex');
  });
});
