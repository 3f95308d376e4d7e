import assert from 'node:assert/strict';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startMockAnthropic } from '../../test-support/hosts/mock-anthropic.js';
import { hostBinary, runHost } from '../../test-support/hosts/run-host.js';
import { installTwoSkillSkit, type HostSandbox } from '../../test-support/hosts/skit-install.js';

/** Text of every tool_result block in a request's messages, in order. */
function toolResults(body: any): { text: string; isError: boolean }[] {
  const out: { text: string; isError: boolean }[] = [];
  for (const m of body?.messages ?? []) {
    for (const c of Array.isArray(m.content) ? m.content : []) {
      if (c?.type !== 'tool_result') continue;
      const text = typeof c.content === 'string' ? c.content : JSON.stringify(c.content);
      out.push({ text, isError: c.is_error === true });
    }
  }
  return out;
}

describe('Claude Code (real binary, offline mock model)', function () {
  this.timeout(90_000);
  let box: HostSandbox;
  before(async () => (box = await installTwoSkillSkit('claude-code')));
  after(() => box?.cleanup());

  it('loads the enabled child and reports the disabled one unavailable after sf add skit + sf skit disable', async () => {
    assert.equal(JSON.parse(readFileSync(join(box.project, '.claude/settings.local.json'), 'utf8')).skillOverrides.summarize, 'off');
    assert.ok(lstatSync(join(box.project, '.claude/skills/summarize')).isSymbolicLink(), 'the disabled child stays projected; only the host control hides it');
    const bin = hostBinary('@anthropic-ai/claude-code/bin/claude.exe', '@anthropic-ai/claude-code');
    const mock = await startMockAnthropic([box.enabled, box.disabled]);
    try {
      const run = await runHost(bin, ['-p', 'Use the review skill, then the summarize skill.', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Skill', '--model', 'claude-sonnet-4-5'], {
        cwd: box.project, home: box.home, timeoutMs: 60_000,
        env: { ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'dummy', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_TELEMETRY: '1' },
      });
      const turns = mock.requests.filter((r) => r.path.endsWith('/v1/messages') && r.body?.tools?.some((t: any) => t.name === 'Skill'));
      const debug = `exit ${run.code}/${run.signal}\nstderr: ${run.stderr.slice(0, 2000)}\nrequests: ${mock.requests.map((r) => r.path).join(', ')}`;
      assert.equal(run.code, 0, debug);
      assert.ok(turns.length >= 3, `three model turns (ask review, ask summarize, finish): ${debug}`);
      const listing = JSON.stringify(turns[0].body.messages) + JSON.stringify(turns[0].body.system);
      assert.match(listing, /- review: Review a code change/, 'the enabled skill is listed to the model');
      assert.doesNotMatch(listing, /- summarize:/, 'the disabled skill is not listed to the model');
      const results = toolResults(turns[turns.length - 1].body);
      assert.equal(results.length, 2, JSON.stringify(results));
      const all = JSON.stringify(turns[turns.length - 1].body.messages);
      assert.ok(!results[0].isError && all.includes(box.enabledMarker), `review loaded: ${results[0].text}`);
      assert.ok(results[1].isError, `summarize refused: ${results[1].text}`);
      assert.match(results[1].text, /summarize is disabled .*skillOverrides/);
      assert.ok(!all.includes(box.disabledMarker), 'the disabled body never reaches the model');
    } finally {
      await mock.close();
    }
  });
});
