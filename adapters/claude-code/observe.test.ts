import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reconcileObserveJson } from '../config/observe-json.js';
import type { ObserveContext } from '../observe/types.js';
import { runGoldenCase, type GoldenCase } from '../../test-support/host-config-golden.js';
import { tempDir } from '../../test-support/index.js';
import { claudeDesired } from './observe.js';

const ctx: ObserveContext = {
  home: '/home/u', env: {}, sfHome: '/home/u/.sf', port: 14318, backupDir: '/home/u/.sf/backups/observe',
  hooksDir: '/home/u/.sf/observe/hooks', spoolDir: '/home/u/.sf/queue/spool',
};
const desired = (phase: 'install' | 'remove') => (phase === 'remove' ? { entries: [], items: [] } : claudeDesired(ctx));

const cases: GoldenCase[] = [
  { name: 'missing', file: 'settings.json' },
  { name: 'empty', file: 'settings.json' },
  { name: 'whitespace-only', file: 'settings.json' },
  // an empty object written over two lines comes back as `{}`: Forge's entries fill `{}` and `{\n}` alike, and no record tells them apart
  { name: 'empty-env-multiline', file: 'settings.json', inexactRestore: true },
  { name: 'comments-unknown-keys', file: 'settings.json' },
  { name: 'tabs-crlf', file: 'settings.json' },
  { name: 'git-ai-hooks', file: 'settings.json' },
  { name: 'user-skill-hook', file: 'settings.json' },
  { name: 'user-same-value', file: 'settings.json' },
  { name: 'user-tunable', file: 'settings.json', diagnostics: ['SF_OBSERVE_USER_VALUE'] },
  { name: 'user-endpoint-conflict', file: 'settings.json', error: 'SF_E_CONFLICT' },
  { name: 'hooks-not-a-list', file: 'settings.json' },
  { name: 'env-not-an-object', file: 'settings.json', error: 'SF_E_CONFIG' },
  { name: 'invalid', file: 'settings.json', error: 'SF_E_CONFIG' },
];

describe('claude-code observability settings merge (golden files)', () => {
  for (const c of cases) {
    it(c.name, () => runGoldenCase('claude-code-observe', c, (file, backups, prev, phase) => reconcileObserveJson(file, backups, 'json', prev as never, desired(phase))));
  }

  it('adds no hook at all: Git AI\'s "*" hooks and a user\'s own Skill hook are all that stays in the hook lists', async () => {
    const fixtures = join(import.meta.dirname, '../../fixtures/host-configs/claude-code-observe');
    for (const c of ['git-ai-hooks', 'user-skill-hook', 'hooks-not-a-list']) {
      const before = JSON.parse(await readFile(join(fixtures, c, 'before.json'), 'utf8'));
      const after = JSON.parse(await readFile(join(fixtures, c, 'after.json'), 'utf8'));
      assert.deepEqual(after.hooks, before.hooks, c);
    }
    assert.deepEqual(claudeDesired(ctx).items, []);
    assert.deepEqual(claudeDesired(ctx).entries.map((e) => e.path[0]), Array(6).fill('env'));
  });

  it('moves its settings to a new port on update and lets go of a value the user changed', async () => {
    const tmp = await tempDir();
    try {
      const file = join(tmp.path, 'settings.json');
      const first = await reconcileObserveJson(file, join(tmp.path, 'b'), 'json', undefined, claudeDesired(ctx));
      const doc = JSON.parse(await readFile(file, 'utf8'));
      doc.env.OTEL_LOG_TOOL_DETAILS = '0';
      await writeFile(file, JSON.stringify(doc, null, 2));
      const second = await reconcileObserveJson(file, join(tmp.path, 'b'), 'json', first.edit, claudeDesired({ ...ctx, port: 15000 }));
      const now = JSON.parse(await readFile(file, 'utf8'));
      assert.equal(now.env.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://127.0.0.1:15000');
      assert.equal(now.env.OTEL_LOG_TOOL_DETAILS, '0', 'the user\'s value stays');
      assert.deepEqual(second.diagnostics.map((d) => d.code), ['SF_OBSERVE_USER_VALUE']);
      await reconcileObserveJson(file, join(tmp.path, 'b'), 'json', second.edit, { entries: [], items: [] });
      assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { env: { OTEL_LOG_TOOL_DETAILS: '0' } }, 'uninstall leaves only the user\'s value');
    } finally {
      await tmp.cleanup();
    }
  });

  describe('an install killed after its settings write, before its record was kept', () => {
    const original = '{\n  "model": "x"\n}\n';
    const none = { entries: [], items: [] };

    it('the next install owns the settings that install wrote, so uninstall gives the original bytes back', async () => {
      const tmp = await tempDir();
      try {
        const file = join(tmp.path, 'settings.json');
        const backups = join(tmp.path, 'b');
        await writeFile(file, original);
        await reconcileObserveJson(file, backups, 'json', undefined, claudeDesired(ctx)); // its record is lost
        const again = await reconcileObserveJson(file, backups, 'json', undefined, claudeDesired(ctx));
        assert.equal(again.edit?.managed.length, 6, 'Forge\'s own values are Forge\'s, not the user\'s');
        await reconcileObserveJson(file, backups, 'json', again.edit, none);
        assert.equal(await readFile(file, 'utf8'), original);
      } finally {
        await tmp.cleanup();
      }
    });

    it('a port change killed the same way is taken over by the next update', async () => {
      const tmp = await tempDir();
      try {
        const file = join(tmp.path, 'settings.json');
        const backups = join(tmp.path, 'b');
        await writeFile(file, original);
        const first = await reconcileObserveJson(file, backups, 'json', undefined, claudeDesired(ctx));
        await reconcileObserveJson(file, backups, 'json', first.edit, claudeDesired({ ...ctx, port: 15555 })); // its record is lost
        const update = await reconcileObserveJson(file, backups, 'json', first.edit, claudeDesired({ ...ctx, port: 15555 }));
        assert.deepEqual(update.diagnostics, []);
        await reconcileObserveJson(file, backups, 'json', update.edit, none);
        assert.equal(await readFile(file, 'utf8'), original);
      } finally {
        await tmp.cleanup();
      }
    });

    it('a user\'s own identical value is still never taken over', async () => {
      const tmp = await tempDir();
      try {
        const file = join(tmp.path, 'settings.json');
        const backups = join(tmp.path, 'b');
        const mine = '{\n  "env": {\n    "CLAUDE_CODE_ENABLE_TELEMETRY": "1"\n  }\n}\n';
        await writeFile(file, mine);
        await reconcileObserveJson(file, backups, 'json', undefined, claudeDesired(ctx));
        const again = await reconcileObserveJson(file, backups, 'json', undefined, claudeDesired(ctx));
        assert.ok(!again.edit?.managed.some((m) => m.path[1] === 'CLAUDE_CODE_ENABLE_TELEMETRY'));
        await reconcileObserveJson(file, backups, 'json', again.edit, none);
        assert.equal(await readFile(file, 'utf8'), mine);
      } finally {
        await tmp.cleanup();
      }
    });
  });
});
