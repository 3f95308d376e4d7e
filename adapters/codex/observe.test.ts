import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { planTomlTable, reconcileTomlTable, type TomlTableEdit } from '../config/toml-table.js';
import { isSfError } from '../../core/errors/index.js';
import { runGoldenCase, type GoldenCase } from '../../test-support/host-config-golden.js';
import { fixturesDir, tempDir } from '../../test-support/index.js';
import { codexOtelValues, MARKER_ID, OTEL_TABLE } from './observe.js';
import { findManagedBlocks } from '../config/toml-blocks.js';

/** The TOML table edit in the golden harness's shape (its `managed` list is what idempotence compares). */
async function reconcile(file: string, backups: string, prev: unknown, phase: 'install' | 'remove') {
  const edit = await reconcileTomlTable(file, backups, prev as TomlTableEdit | undefined, OTEL_TABLE, MARKER_ID, phase === 'install' ? codexOtelValues(14318) : undefined);
  return { diagnostics: [], edit: edit && { ...edit, format: 'toml' as const, created: [], managed: [{ skillId: 'forge:observe', path: [OTEL_TABLE], value: edit.values }] } };
}

const cases: GoldenCase[] = [
  { name: 'missing', file: 'config.toml' },
  { name: 'empty', file: 'config.toml' },
  { name: 'comments-and-tables', file: 'config.toml' },
  { name: 'skills-block', file: 'config.toml' },
  { name: 'crlf', file: 'config.toml' },
  { name: 'no-final-newline', file: 'config.toml' },
  { name: 'trailing-blank-lines', file: 'config.toml' },
  { name: 'whitespace-only', file: 'config.toml' },
  { name: 'user-otel-conflict', file: 'config.toml', error: 'SF_E_CONFLICT' },
  { name: 'user-otel-dotted', file: 'config.toml', error: 'SF_E_CONFLICT' },
  { name: 'invalid', file: 'config.toml', error: 'SF_E_CONFIG' },
];

describe('codex [otel] table merge (golden files)', () => {
  for (const c of cases) it(c.name, () => runGoldenCase('codex-observe', c, reconcile));

  it('keeps what the user changed or added in Forge\'s [otel] block, on update and on uninstall', async () => {
    const tmp = await tempDir('sf-codex-otel-user-');
    try {
      const file = join(tmp.path, 'config.toml');
      await writeFile(file, 'model = "o3"\n');
      const first = await reconcileTomlTable(file, join(tmp.path, 'b'), undefined, OTEL_TABLE, MARKER_ID, codexOtelValues(14318));
      const edited = (await readFile(file, 'utf8')).replace('log_user_prompt = false', 'log_user_prompt = true') + 'environment = "dev"\n';
      await writeFile(file, edited);
      const updated = await reconcileTomlTable(file, join(tmp.path, 'b'), first, OTEL_TABLE, MARKER_ID, codexOtelValues(14318));
      let doc = parse(await readFile(file, 'utf8')) as Record<string, any>;
      assert.equal(doc.otel.log_user_prompt, true, 'the user\'s value stays');
      assert.equal(doc.otel.environment, 'dev', 'the user\'s key stays');
      assert.equal(doc.otel.exporter['otlp-http'].endpoint, 'http://127.0.0.1:14318/v1/logs');
      assert.deepEqual(updated?.values, codexOtelValues(14318), 'the record keeps what Forge wrote, not the user\'s values');
      assert.equal(await reconcileTomlTable(file, join(tmp.path, 'b'), updated, OTEL_TABLE, MARKER_ID, undefined), undefined);
      const after = await readFile(file, 'utf8');
      doc = parse(after) as Record<string, any>;
      assert.deepEqual({ ...doc.otel }, { log_user_prompt: true, environment: 'dev' }, 'only Forge\'s own values went');
      assert.doesNotMatch(after, /managed by sf/, 'what is left is the user\'s table');
    } finally {
      await tmp.cleanup();
    }
  });

  it('uninstall from a file without a final newline takes the table out when the user appended a table right after it', async () => {
    const tmp = await tempDir('sf-codex-otel-nofinal-');
    try {
      const file = join(tmp.path, 'config.toml');
      await writeFile(file, 'model = "o3"');
      const edit = await reconcileTomlTable(file, join(tmp.path, 'b'), undefined, OTEL_TABLE, MARKER_ID, codexOtelValues(14318));
      await writeFile(file, (await readFile(file, 'utf8')) + '[profiles.work]\nmodel = "gpt-5"\n');
      assert.equal(await reconcileTomlTable(file, join(tmp.path, 'b'), edit, OTEL_TABLE, MARKER_ID, undefined), undefined);
      assert.equal(await readFile(file, 'utf8'), 'model = "o3"\n[profiles.work]\nmodel = "gpt-5"\n');
    } finally {
      await tmp.cleanup();
    }
  });

  it('a removal that would still break the file is refused as removing, not adding', () => {
    // `foo = 2` after the comment belongs to [otel] in TOML; without the table it would repeat the top-level foo
    const text = `foo = 1\n\n# managed by sf: ${MARKER_ID}\n[${OTEL_TABLE}]\nlog_user_prompt = false\n# note\nfoo = 2\n`;
    assert.throws(() => planTomlTable(text, 'config.toml', OTEL_TABLE, MARKER_ID, undefined, '\n', { log_user_prompt: false }), (e: unknown) => {
      assert.ok(isSfError(e, 'SF_E_CONFIG'), String(e));
      assert.match(e.message, /removing Forge's \[otel\] table would make the file invalid TOML/);
      return true;
    });
  });

  it('the result is what Codex reads: [otel] exporters at the observer, prompts off, skill blocks untouched', async () => {
    const text = await readFile(join(fixturesDir, 'host-configs/codex-observe/skills-block/after.toml'), 'utf8');
    const doc = parse(text) as Record<string, any>;
    assert.equal(doc.otel.exporter['otlp-http'].endpoint, 'http://127.0.0.1:14318/v1/logs');
    assert.equal(doc.otel.metrics_exporter['otlp-http'].protocol, 'binary');
    assert.equal(doc.otel.log_user_prompt, false);
    assert.equal(doc.otel.trace_exporter, undefined);
    assert.deepEqual(findManagedBlocks(text).map((b) => b.id), ['other/kit:gamma'], 'the skill block parser still sees exactly the skill block');
  });
});
