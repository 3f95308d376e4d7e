import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { observeContext } from '../observe/registry.js';
import { claudeObserveAdapter } from './observe.js';

/**
 * Install then uninstall of Claude Code's observability `env` entries on settings the user wrote
 * by hand: the bytes come back (docs/observe.md: "Configs come back byte for byte when nothing
 * else changed"), and while installed the user's comments stay on the user's lines.
 */
describe('claude code observability: the user\'s settings text, byte for byte', () => {
  async function roundTrip(before: string): Promise<{ installed: string; after: string }> {
    const tmp = await tempDir('sf-claude-roundtrip-');
    try {
      const ctx = observeContext({ HOME: tmp.path, SF_HOME: join(tmp.path, '.sf'), CLAUDE_CONFIG_DIR: '' }, 14318);
      const file = join(tmp.path, '.claude', 'settings.json');
      await mkdir(join(tmp.path, '.claude'));
      await writeFile(file, before);
      const { record, diagnostics } = await claudeObserveAdapter.apply(ctx, undefined);
      assert.deepEqual(diagnostics, []);
      const installed = await readFile(file, 'utf8');
      // an update in between changes nothing
      const again = await claudeObserveAdapter.apply(ctx, record);
      assert.equal(await readFile(file, 'utf8'), installed);
      assert.deepEqual(await claudeObserveAdapter.remove(ctx, again.record), []);
      return { installed, after: await readFile(file, 'utf8') };
    } finally {
      await tmp.cleanup();
    }
  }

  it('an empty env object of the user\'s comes back as it was written: { }, spread over lines, holding a comment', async () => {
    for (const before of [
      '{ "model": "opus", "env": { } }\n',
      '{ "model": "opus", "env": {} }\n',
      '{\n  "env": {\n  }\n}\n',
      '{\n  "env": {}\n}\n',
      '{ "env": { /* none yet */ } }\n',
      '{\n  "env": { /* none yet */ }\n}\n',
      '{\n  "env": {\n    // FOO: later\n  }\n}\n',
      '{ }\n',
      '{\n}\n',
      '{\r\n  "env": {\r\n  }\r\n}\r\n',
    ]) {
      const { after } = await roundTrip(before);
      assert.equal(after, before, JSON.stringify(before));
    }
  });

  it('a one-line object holding a comment gets Forge\'s entries on that line, not reflowed', async () => {
    const { installed } = await roundTrip('{ "env": { /* none yet */ } }\n');
    assert.equal(installed.split('\n').length, 2, installed);
    assert.match(installed, /^\{ "env": \{ \/\* none yet \*\/ "CLAUDE_CODE_ENABLE_TELEMETRY": "1", /);
  });

  it('a comment after the user\'s last env entry stays on the user\'s line while installed', async () => {
    for (const before of [
      '{\n  "env": {\n    "HTTPS_PROXY": "http://proxy:3128" // corporate proxy, do not remove\n  }\n}\n',
      '{\n  "env": {\n    "FOO": "bar", // keep\n  }\n}\n',
      '{\n  "env": {\n    "FOO": "bar" /* keep */\n  }\n}\n',
      '{\r\n  "env": {\r\n    "FOO": "bar" // keep\r\n  }\r\n}\r\n',
    ]) {
      const { installed, after } = await roundTrip(before);
      const userLine = before.split(/\r?\n/)[2];
      const lines = installed.split(/\r?\n/);
      const at = lines.findIndex((l) => l.includes('"FOO"') || l.includes('"HTTPS_PROXY"'));
      assert.match(lines[at], /\/\/ corporate proxy, do not remove$|\/\/ keep$|\/\* keep \*\/$/, installed);
      assert.ok([userLine, userLine.replace(/^(\s*"[^"]*": "[^"]*")/, '$1,')].includes(lines[at]), `the user's line, with a comma after the value at most: ${lines[at]}`);
      assert.ok(!lines.some((l, i) => i !== at && /keep|corporate/.test(l)), 'the comment is on no other line');
      assert.equal(after, before, JSON.stringify(before));
    }
  });
});
