import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueToken } from '../../hub/auth/tokens.js';
import { startHub, type RunningHub } from '../../hub/serve.js';
import { runSf } from '../../test-support/index.js';
import { waitFor } from '../../test-support/hosts/observe.js';
import { startMockAnthropic } from '../../test-support/hosts/mock-anthropic.js';
import type { MockServer } from '../../test-support/hosts/mock-server.js';
import { expectActivation, expectDisableLinked, startStage2, type Stage2 } from '../../test-support/hosts/observe-stage2.js';
import { hostBinary, runHost } from '../../test-support/hosts/run-host.js';
import { installTwoSkillSkit, type HostSandbox } from '../../test-support/hosts/skit-install.js';

const PROMPT = 'Please review my change with the review skill.';

describe('Claude Code observability, Stage 2 (real binary, offline mock model)', function () {
  this.timeout(90_000);
  let box: HostSandbox | undefined;
  let mock: MockServer | undefined;
  let stage: Stage2 | undefined;
  let hub: RunningHub | undefined;
  after(async () => {
    await stage?.stop();
    await hub?.close();
    await mock?.close();
    await box?.cleanup();
  });

  it('sf observe install -> one skill activation in the file and the OTLP receiver, then sf skit disable links to it', async () => {
    const bin = hostBinary('@anthropic-ai/claude-code/bin/claude.exe', '@anthropic-ai/claude-code');
    mock = await startMockAnthropic(['review']);
    box = await installTwoSkillSkit('claude-code', undefined, { disable: false });
    // a third destination: the Forge hub, with a device credential created from the sf login
    hub = await startHub({ dataDir: join(box.root, 'hub') });
    const pat = issueToken(hub.storage.tokens, { userId: hub.storage.accounts.createUser('dev', false).id, kind: 'pat', name: 'cli', scopes: ['registry:read', 'telemetry:write'] }).secret;
    const login = await runSf(['login', '--hub', hub.url], { env: { HOME: box.home, SF_HOME: box.sfHome, SF_HUB_TOKEN: '' }, input: pat });
    assert.equal(login.code, 0, login.stderr);
    stage = await startStage2(box, 'claude-code', ['forge=hub']);
    const settings = JSON.parse(readFileSync(join(box.home, '.claude/settings.json'), 'utf8'));
    assert.equal(settings.env.OTEL_EXPORTER_OTLP_ENDPOINT, `http://127.0.0.1:${stage.port}`);
    assert.equal(settings.hooks, undefined, 'no hook: the observer registers the session from Claude\'s transcript');

    // no OTEL_* in the host's environment: everything comes from the settings Forge merged
    const run = await runHost(bin, ['-p', PROMPT, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Skill', '--model', 'claude-sonnet-4-5'], {
      cwd: box.project, home: box.home, timeoutMs: 60_000,
      env: { ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'dummy', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_ERROR_REPORTING: '1' },
    });
    assert.equal(run.code, 0, `claude exit ${run.code}/${run.signal}\n${run.stderr.slice(0, 2000)}`);
    const sessionId = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.type === 'system' && m.subtype === 'init')?.session_id as string;
    assert.ok(sessionId, 'Claude reported its session id');
    assert.ok(existsSync(join(box.home, '.claude', 'projects', box.project.replace(/[^A-Za-z0-9]/g, '-'), `${sessionId}.jsonl`)), 'Claude wrote the transcript the observer reads');
    const loaded = mock.requests.some((r) => JSON.stringify(r.body ?? '').includes(box!.enabledMarker));
    assert.ok(loaded, 'the review skill body reached the model (the skill really loaded)');

    const inventory = JSON.parse(await box.sf(['skit', 'list', '--json']))[0];
    const review = inventory.skills.find((s: { name: string }) => s.name === 'review');
    const activation = await expectActivation(stage, {
      skillId: 'local/kit:review', skitId: 'local/kit', contentHash: review.hash, bundleHash: inventory.bundleHash,
      host: 'claude_code', sessionId, trigger: 'implicit', fidelity: { selected: 'exact', loaded: 'exact' }, resolution: 'name_and_scope', registered: true,
      forbidden: [PROMPT, box.enabledMarker, box.disabledMarker, 'Launching skill', box.project],
    });
    await expectDisableLinked(stage, 'local/kit:review', activation, 'claude-code');
    // the hub received and normalized the same activation (its query API finds the loaded event by id)
    const loadedId = (await stage.both()).file.find((e) => e.name === 'agent.skill.loaded')!.attributes['agent.skill.event.id'] as string;
    const row = await waitFor('the loaded event on the hub', async () => {
      const res = await fetch(`${hub!.url}/api/v1/telemetry/events/${loadedId}`, { headers: { authorization: `Bearer ${pat}` } });
      return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : undefined;
    }, 30_000);
    assert.equal(row.eventName, 'agent.skill.loaded');
    assert.equal(row.sessionId, sessionId);
    assert.match(String(row.deviceId), /^dev_/, 'delivered with the device credential sf observe created');
    assert.match(JSON.stringify(row), /local\/kit:review/);
  });
});
