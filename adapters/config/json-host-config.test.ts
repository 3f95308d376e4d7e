import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { reconcileJsonConfig } from './json-host-config.js';
import type { ManagedConfigEdit } from './managed.js';

/**
 * Skill entries that go into an object the user already had, empty: removing Forge's last entry
 * gives back what the object held (`{ }`, `{` and `}` on two lines, a comment), not `{}`.
 */
describe('skill entries in a user\'s empty object', () => {
  const entry = (name: string, value: unknown) => ({ skillId: `acme/kit:${name}`, skillName: name, path: ['skillOverrides', name], value });
  const reconcile = (file: string, previous: ManagedConfigEdit | undefined, desired: ReturnType<typeof entry>[]) =>
    reconcileJsonConfig({ file, backupDir: join(file, '..', 'b'), format: 'jsonc', previous, desired, disabledValue: 'off' });

  const originals = [
    '{\n  "skillOverrides": {\n  },\n  "model": "opus"\n}\n',
    '{"skillOverrides": { }}\n',
    '{\n  "skillOverrides": { /* none yet */ }\n}\n',
    '{\n  "skillOverrides": {\n    // none yet\n  }\n}\n',
    '{ }',
  ];
  for (const original of originals) {
    it(`disable, then enable, gives back ${JSON.stringify(original)}`, async () => {
      const tmp = await tempDir('sf-json-emptied-');
      try {
        const file = join(tmp.path, 'settings.json');
        await writeFile(file, original);
        const off = await reconcile(file, undefined, [entry('summarize', 'off')]);
        assert.match(await readFile(file, 'utf8'), /"summarize": "off"/);
        const on = await reconcile(file, off.edit, [entry('summarize', undefined)]);
        assert.equal(on.edit, undefined);
        assert.equal(await readFile(file, 'utf8'), original);
      } finally {
        await tmp.cleanup();
      }
    });
  }

  it('two entries in, taken out one at a time: the object comes back with the last one', async () => {
    const tmp = await tempDir('sf-json-emptied-');
    try {
      const file = join(tmp.path, 'settings.json');
      const original = '{\n  "skillOverrides": { }\n}\n';
      await writeFile(file, original);
      const both = await reconcile(file, undefined, [entry('a', 'off'), entry('b', 'off')]);
      const one = await reconcile(file, both.edit, [entry('a', undefined), entry('b', 'off')]);
      assert.deepEqual(one.edit?.emptied, [{ path: ['skillOverrides'], text: ' ' }], 'still on record while Forge has entries there');
      await reconcile(file, one.edit, [entry('a', undefined), entry('b', undefined)]);
      assert.equal(await readFile(file, 'utf8'), original);
    } finally {
      await tmp.cleanup();
    }
  });

  it('a command killed before its record was kept: the write note knows what the object held', async () => {
    const tmp = await tempDir('sf-json-emptied-');
    try {
      const file = join(tmp.path, 'settings.json');
      const original = '{\n  "skillOverrides": {\n  }\n}\n';
      await writeFile(file, original);
      await reconcile(file, undefined, [entry('summarize', 'off')]);
      // no record: the note alone says the entry and the object's text are Forge's to take back
      await reconcile(file, undefined, [entry('summarize', undefined)]);
      assert.equal(await readFile(file, 'utf8'), original);
    } finally {
      await tmp.cleanup();
    }
  });

  it('a comment the user put in the emptied object since stays as they wrote it', async () => {
    const tmp = await tempDir('sf-json-emptied-');
    try {
      const file = join(tmp.path, 'settings.json');
      await writeFile(file, '{"skillOverrides": { }}\n');
      const off = await reconcile(file, undefined, [entry('summarize', 'off')]);
      await writeFile(file, (await readFile(file, 'utf8')).replace('"summarize"', '/* later */ "summarize"'));
      await reconcile(file, off.edit, [entry('summarize', undefined)]);
      assert.equal(await readFile(file, 'utf8'), '{"skillOverrides": {/* later */}}\n', 'the comment stays; what the object held before is not put back over it');
    } finally {
      await tmp.cleanup();
    }
  });
});
