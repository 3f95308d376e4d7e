import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { tempDir } from '../../test-support/index.js';
import type { ObserveContext, ObserveHostRecord } from '../observe/types.js';
import { observeContext } from '../observe/registry.js';
import { codexObserveAdapter } from './observe.js';

/**
 * What the user does to Forge's [otel] block after `sf observe install`, and what doctor
 * (diagnose), update (apply) and uninstall (remove) make of it: doctor says what is really there,
 * update keeps the user's keys where they are, and doctor agrees with update afterwards.
 */
describe('codex observability: the user edits Forge\'s [otel] block', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let ctx: ObserveContext;
  let file: string;
  let record: ObserveHostRecord;
  const errors = (d: { severity: string; code: string }[]) => d.filter((x) => x.severity === 'error').map((x) => x.code);

  beforeEach(async () => {
    tmp = await tempDir('sf-codex-otel-drift-');
    const sfHome = join(tmp.path, '.sf');
    ctx = observeContext({ HOME: tmp.path, SF_HOME: sfHome, CODEX_HOME: join(tmp.path, '.codex') }, 14318);
    file = join(tmp.path, '.codex', 'config.toml');
    await mkdir(join(tmp.path, '.codex'));
    await writeFile(file, 'model = "o3"\n');
    record = (await codexObserveAdapter.apply(ctx, undefined)).record;
  });
  afterEach(() => tmp.cleanup());

  it('a key the user added inside the block: doctor says so (no error), update keeps it where it is', async () => {
    const edited = (await readFile(file, 'utf8')).replace('log_user_prompt = false\n', 'log_user_prompt = false\nenvironment = "dev"\n');
    await writeFile(file, edited);
    const before = await codexObserveAdapter.diagnose(ctx, record);
    assert.deepEqual(errors(before), [], 'a user key is not "does not point at the observer"');
    assert.match(before.map((d) => d.message).join('\n'), /environment/);
    assert.doesNotMatch(before.map((d) => d.message).join('\n'), /does not point at the observer/);
    const { record: updated, diagnostics } = await codexObserveAdapter.apply(ctx, record);
    assert.deepEqual(errors(diagnostics), []);
    assert.equal(await readFile(file, 'utf8'), edited, 'update leaves the user\'s key where it is');
    assert.deepEqual(errors(await codexObserveAdapter.diagnose(ctx, updated)), []);
  });

  it('after a port change, update rewrites Forge\'s endpoints in place and keeps the user\'s key between them', async () => {
    const edited = (await readFile(file, 'utf8')).replace('log_user_prompt = false\n', 'log_user_prompt = false\nenvironment = "dev"\n');
    await writeFile(file, edited);
    const moved = { ...ctx, port: 15000 };
    assert.match((await codexObserveAdapter.diagnose(moved, record)).map((d) => d.message).join('\n'), /port 15000/);
    const { record: updated, diagnostics } = await codexObserveAdapter.apply(moved, record);
    assert.deepEqual(errors(diagnostics), []);
    assert.equal(await readFile(file, 'utf8'), edited.replaceAll(':14318/', ':15000/'));
    assert.deepEqual(errors(await codexObserveAdapter.diagnose(moved, updated)), []);
  });

  it('the block moved above the user\'s settings: update and uninstall still work; doctor warns that those keys now belong to [otel]', async () => {
    const block = (await readFile(file, 'utf8')).slice('model = "o3"\n\n'.length).replace('log_user_prompt = false\n', 'log_user_prompt = false\nenvironment = "dev"\n');
    const edited = `${block}\nmodel = "o3"\n\n[profiles.x]\nmodel = "gpt"\n`;
    await writeFile(file, edited);
    const found = await codexObserveAdapter.diagnose(ctx, record);
    assert.deepEqual(errors(found), []);
    const warning = found.find((d) => d.severity === 'warning');
    assert.match(warning?.message ?? '', /model/);
    const { record: updated, diagnostics } = await codexObserveAdapter.apply(ctx, record);
    assert.deepEqual(errors(diagnostics), []);
    assert.equal(await readFile(file, 'utf8'), edited);
    assert.deepEqual(await codexObserveAdapter.remove(ctx, updated), []);
    const after = await readFile(file, 'utf8');
    const doc = parse(after) as Record<string, any>;
    assert.deepEqual({ ...doc.otel }, { environment: 'dev', model: 'o3' }, 'only Forge\'s keys went');
    assert.deepEqual({ ...doc.profiles.x }, { model: 'gpt' });
    assert.doesNotMatch(after, /managed by sf/);
  });

  it('an endpoint the user changed: doctor says it is theirs and how to get Forge\'s back; update says it kept it (no false "updated"); deleting the line lets update restore it', async () => {
    const original = await readFile(file, 'utf8');
    await writeFile(file, original.replace('14318/v1/logs', '9999/v1/logs'));
    const found = await codexObserveAdapter.diagnose(ctx, record);
    const drift = found.find((d) => d.severity === 'error');
    assert.match(drift?.message ?? '', /9999/);
    assert.doesNotMatch(drift?.hint ?? '', /to rewrite it/, 'update does not rewrite a value the user changed, so doctor must not promise it');
    const { diagnostics } = await codexObserveAdapter.apply(ctx, record);
    assert.deepEqual(errors(diagnostics), ['SF_OBSERVE_USER_VALUE'], 'update reports that it kept the user\'s endpoint');
    assert.match(await readFile(file, 'utf8'), /9999\/v1\/logs/);
    // the user follows the hint: deletes the line, runs update
    await writeFile(file, (await readFile(file, 'utf8')).split('\n').filter((l) => !l.startsWith('exporter =')).join('\n'));
    const { record: updated, diagnostics: again } = await codexObserveAdapter.apply(ctx, record);
    assert.deepEqual(errors(again), []);
    assert.equal(await readFile(file, 'utf8'), original, 'Forge\'s line is back in its place');
    assert.deepEqual(await codexObserveAdapter.diagnose(ctx, updated), []);
  });

  it('log_user_prompt the user turned on: kept, a warning in doctor and update alike (telemetry still reaches the observer)', async () => {
    const edited = (await readFile(file, 'utf8')).replace('log_user_prompt = false', 'log_user_prompt = true');
    await writeFile(file, edited);
    const sev = (d: { code: string; severity: string }[]) => d.map((x) => `${x.code}:${x.severity}`);
    assert.deepEqual(sev(await codexObserveAdapter.diagnose(ctx, record)), ['SF_OBSERVE_USER_VALUE:warning']);
    const { diagnostics } = await codexObserveAdapter.apply(ctx, record);
    assert.deepEqual(sev(diagnostics), ['SF_OBSERVE_USER_VALUE:warning']);
    assert.equal(await readFile(file, 'utf8'), edited);
  });
});
