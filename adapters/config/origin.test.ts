import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { reconcileJsonConfig } from './json-host-config.js';
import { reconcileObserveJson } from './observe-json.js';
import { isBareEmptyDocument } from './origin.js';

/**
 * A config file Forge created (or found blank) goes back to that only when nothing of the user's is
 * in it: comments written into it since are the user's and keep the file.
 */
describe('config origin: a file Forge created that the user wrote into', () => {
  const skill = (value: unknown) => [{ skillId: 'acme/kit:summarize', skillName: 'summarize', path: ['permission', 'skill', 'summarize'], value }];
  const reconcile = (file: string, backupDir: string, previous: Parameters<typeof reconcileJsonConfig>[0]['previous'], on: boolean) =>
    reconcileJsonConfig({ file, backupDir, format: 'jsonc', previous, desired: on ? skill(undefined) : skill('deny'), disabledValue: 'deny' });
  const notes = '  // my notes: switch to this model once the team has access\n  // "model": "anthropic/claude-opus-4",\n';

  it('skill entries: the comments stay, Forge\'s entries and containers go, the file is kept', async () => {
    const tmp = await tempDir('sf-origin-');
    try {
      const file = join(tmp.path, 'opencode.jsonc');
      const off = await reconcile(file, join(tmp.path, 'b'), undefined, false);
      assert.equal(off.edit?.origin, 'missing');
      const text = await readFile(file, 'utf8');
      await writeFile(file, text.replace('{\n', `{\n${notes}`));
      await reconcile(file, join(tmp.path, 'b'), off.edit, true);
      assert.equal(await readFile(file, 'utf8'), `{\n${notes}}\n`);
    } finally {
      await tmp.cleanup();
    }
  });

  it('skill entries: a blank file Forge filled keeps the user\'s comment instead of going back to blank', async () => {
    const tmp = await tempDir('sf-origin-');
    try {
      const file = join(tmp.path, 'opencode.jsonc');
      await writeFile(file, '\n\n');
      const off = await reconcile(file, join(tmp.path, 'b'), undefined, false);
      assert.equal(off.edit?.origin, 'empty');
      await writeFile(file, `// mine\n${await readFile(file, 'utf8')}`);
      await reconcile(file, join(tmp.path, 'b'), off.edit, true);
      assert.equal(await readFile(file, 'utf8'), '// mine\n{}\n');
    } finally {
      await tmp.cleanup();
    }
  });

  it('skill entries: without the user\'s text the file Forge created is deleted again', async () => {
    const tmp = await tempDir('sf-origin-');
    try {
      const file = join(tmp.path, 'opencode.jsonc');
      const off = await reconcile(file, join(tmp.path, 'b'), undefined, false);
      await reconcile(file, join(tmp.path, 'b'), off.edit, true);
      assert.equal(existsSync(file), false);
    } finally {
      await tmp.cleanup();
    }
  });

  it('observe settings: a settings.json observe created and the user annotated is kept on uninstall', async () => {
    const tmp = await tempDir('sf-origin-');
    try {
      const file = join(tmp.path, 'settings.json');
      const desired = { entries: [{ path: ['env', 'CLAUDE_CODE_ENABLE_TELEMETRY'], value: '1' }], items: [] };
      const first = await reconcileObserveJson(file, join(tmp.path, 'b'), 'json', undefined, desired);
      assert.equal(first.edit?.origin, 'missing');
      await writeFile(file, (await readFile(file, 'utf8')).replace('{\n', '{\n  // "model": "opus",   <- my note\n'));
      await reconcileObserveJson(file, join(tmp.path, 'b'), 'json', first.edit, { entries: [], items: [] });
      assert.equal(await readFile(file, 'utf8'), '{\n  // "model": "opus",   <- my note\n}\n');
    } finally {
      await tmp.cleanup();
    }
  });

  it('what Forge writes for an empty document: nothing or {} with whitespace, never a comment', () => {
    for (const t of ['', '\n', '{}', '{}\n', '{ }\r\n', ' {\n}\n']) assert.equal(isBareEmptyDocument(t), true, JSON.stringify(t));
    for (const t of ['// x\n{}', '{ /* c */ }', '{}\n// end\n', '{"a": 1}']) assert.equal(isBareEmptyDocument(t), false, JSON.stringify(t));
  });
});
