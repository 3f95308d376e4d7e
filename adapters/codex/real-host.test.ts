import assert from 'node:assert/strict';
import { lstatSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MockServer } from '../../test-support/hosts/mock-server.js';
import { startMockOpenAI } from '../../test-support/hosts/mock-openai.js';
import { hostBinary, runHost } from '../../test-support/hosts/run-host.js';
import { codexUserConfig as userConfig } from '../../test-support/hosts/codex-config.js';
import { installTwoSkillSkit, type HostSandbox } from '../../test-support/hosts/skit-install.js';

describe('Codex (real binary, offline mock model)', function () {
  this.timeout(90_000);
  let box: HostSandbox;
  let mock: MockServer;
  let written = '';
  before(async () => {
    mock = await startMockOpenAI([]);
    box = await installTwoSkillSkit('codex', async ({ home, project }) => {
      await mkdir(join(home, '.codex'), { recursive: true });
      written = userConfig(mock.url, project);
      await writeFile(join(home, '.codex/config.toml'), written);
    });
  });
  after(async () => {
    await mock?.close();
    await box?.cleanup();
  });

  it('offers and injects the enabled child, and hides the disabled one, after sf add skit + sf skit disable', async () => {
    const config = readFileSync(join(box.home, '.codex/config.toml'), 'utf8');
    assert.ok(config.startsWith(written), 'the user\'s config is kept byte for byte; Forge only appended its block');
    assert.match(config, /# managed by sf: local\/kit:summarize\n\[\[skills\.config\]\]\npath = ".*\/\.agents\/skills\/summarize\/SKILL\.md"\nenabled = false\n$/);
    assert.ok(lstatSync(join(box.project, '.agents/skills/summarize')).isSymbolicLink(), 'the disabled child stays projected');
    const bin = hostBinary('@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex', '@openai/codex');
    const run = await runHost(bin, ['exec', '--skip-git-repo-check', '--json', '-s', 'read-only', 'Use $review and then $summarize on my change.'], {
      cwd: box.project, home: box.home, timeoutMs: 60_000, env: { CODEX_HOME: join(box.home, '.codex'), MOCK_API_KEY: 'dummy' },
    });
    const turns = mock.requests.filter((r) => r.path.endsWith('/responses'));
    assert.equal(run.code, 0, `exit ${run.code}/${run.signal}\n${run.stderr.slice(0, 2000)}`);
    assert.ok(turns.length >= 1, 'codex asked the mock model');
    const input = JSON.stringify(turns[0].body.input);
    const listing = /<skills_instructions>.*?<\/skills_instructions>|## Skills.*?(?=\\"}|$)/s.exec(input)?.[0] ?? '';
    assert.match(listing, /- review: Review a code change/, 'the enabled skill is in the skill list');
    assert.doesNotMatch(listing, /- summarize:/, 'the disabled skill is not in the skill list');
    assert.match(input, /<skill>\\n<name>review<\/name>/, '$review injected the enabled skill');
    assert.ok(input.includes(box.enabledMarker), 'the enabled SKILL.md body reached the model');
    assert.doesNotMatch(input, /<name>summarize<\/name>/, '$summarize injected nothing');
    assert.ok(!mock.requests.some((r) => JSON.stringify(r.body ?? '').includes(box.disabledMarker)), 'the disabled body never reaches the model');
  });
});
