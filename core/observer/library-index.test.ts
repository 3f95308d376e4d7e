import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeTree } from '../../test-support/index.js';
import { installSandbox, skillMarkdown, type InstallSandbox, type ListedRecord } from '../../test-support/skit-install.js';
import { waitFor } from '../../test-support/otlp-sink.js';
import { sfPaths } from '../library/paths.js';
import { identityOf } from '../telemetry/enrich/identity.js';
import type { SkillQuery } from '../telemetry/enrich/skill-index.js';
import { msToNanos } from '../telemetry/time.js';
import { DEFAULT_OBSERVE_CONFIG } from './config.js';
import { LibraryIndex } from './library-index.js';
import { startObserver, type ObserverHandle } from './service.js';

/**
 * The observer's library view over a real LMDB library that the real CLI writes: an activation
 * is resolved against the library as it was when the host used the skill, not when the observer
 * processes it (Claude Code exports in batches, the OpenCode spool is replayed hours later).
 */

interface Release {
  bundleHash: string;
  reviewHash: string;
  reviewDir: string;
}

const release = (r: ListedRecord): Release => ({
  bundleHash: r.bundleHash,
  reviewHash: r.skills.find((s) => s.name === 'review')!.hash,
  reviewDir: r.targets.find((t) => t.agent === 'opencode')!.paths.find((p) => p.skillId === 'acme/kit:review')!.path,
});

async function installed(sb: InstallSandbox): Promise<Release> {
  const [rec] = await sb.list();
  return release(rec);
}

/** Edits the kit's review skill and runs `sf skit update`; the new release. */
async function updateReview(sb: InstallSandbox, text: string): Promise<Release> {
  await writeFile(join(sb.source, 'skills', 'review', 'SKILL.md'), skillMarkdown('review', text));
  const r = await sb.sf(['skit', 'update', 'acme/kit']);
  assert.equal(r.code, 0, r.stderr);
  return installed(sb);
}

const reviewQuery = (dir: string, atMs: number): SkillQuery => ({ agent: 'opencode', name: 'review', dir, hostScope: 'unknown', at: msToNanos(atMs) });

describe('observer library index: the library as it was at the event time (real CLI, real LMDB)', function () {
  this.timeout(60_000);
  let sb: InstallSandbox;
  beforeEach(async () => {
    sb = await installSandbox('sf-asof-');
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'opencode', '--yes']);
    assert.equal(add.code, 0, add.stderr);
  });
  afterEach(async () => sb?.cleanup());

  it('resolves an activation from before an update to the release that ran then, one after it to the new one', async () => {
    const lib = new LibraryIndex(sfPaths({ SF_HOME: sb.sfHome }), 0);
    await lib.refresh();
    const v1 = await installed(sb);
    const usedAt = Date.now();
    await sleep(5);
    const v2 = await updateReview(sb, 'v2');
    assert.notEqual(v2.bundleHash, v1.bundleHash);
    await lib.refresh();

    const late = lib.resolve(reviewQuery(v1.reviewDir, usedAt));
    assert.equal(late.resolution, 'exact_path');
    assert.equal(late.entry?.bundleHash, v1.bundleHash, 'the late activation ran the release installed at its time');
    assert.equal(late.entry?.contentHash, v1.reviewHash);
    const now = lib.resolve(reviewQuery(v2.reviewDir, Date.now()));
    assert.equal(now.entry?.bundleHash, v2.bundleHash);
    assert.equal(now.entry?.contentHash, v2.reviewHash);
  });

  it('does not label exact what predates the oldest library state it holds (an observer started after the update)', async () => {
    const v1 = await installed(sb);
    const usedAt = Date.now();
    await sleep(5);
    const v2 = await updateReview(sb, 'v2');
    const lib = new LibraryIndex(sfPaths({ SF_HOME: sb.sfHome }), 0);
    await lib.refresh();

    const replayed = lib.resolve(reviewQuery(v1.reviewDir, usedAt));
    assert.equal(replayed.resolution, 'ambiguous', 'the release that ran is unknown: no identity is claimed');
    assert.equal(replayed.entry, undefined);
    assert.deepEqual(identityOf(replayed, 'review'), { 'agent.skill.id': 'ambiguous:review', 'agent.skill.name': 'review', 'agent.skill.library.resolution': 'ambiguous' });
    const after = lib.resolve(reviewQuery(v2.reviewDir, Date.now()));
    assert.equal(after.resolution, 'exact_path');
    assert.equal(after.entry?.bundleHash, v2.bundleHash);
  });

  it('does not say "not installed" for an event from before a removal it never saw (an observer started after sf skit remove)', async () => {
    const v1 = await installed(sb);
    const usedAt = Date.now();
    await sleep(5);
    const r = await sb.sf(['skit', 'remove', 'acme/kit']);
    assert.equal(r.code, 0, r.stderr);
    const lib = new LibraryIndex(sfPaths({ SF_HOME: sb.sfHome }), 0);
    await lib.refresh();
    assert.equal(lib.resolve(reviewQuery(v1.reviewDir, usedAt)).resolution, 'ambiguous', 'the removed installation may have been what ran');
    assert.equal(lib.resolve(reviewQuery(v1.reviewDir, Date.now())).resolution, 'not_installed', 'after the removal it is not installed');
  });

  it('keeps exact an older event whose installation has not changed since (only another SKIT did)', async () => {
    const v1 = await installed(sb);
    const usedAt = Date.now();
    await sleep(5);
    const single = join(sb.root, 'solo');
    await writeTree(single, { 'SKILL.md': skillMarkdown('solo') });
    const other = await sb.sf(['add', 'skit', single, '--agent', 'opencode', '--yes']);
    assert.equal(other.code, 0, other.stderr);
    const lib = new LibraryIndex(sfPaths({ SF_HOME: sb.sfHome }), 0);
    await lib.refresh();
    const r = lib.resolve(reviewQuery(v1.reviewDir, usedAt));
    assert.equal(r.resolution, 'exact_path');
    assert.equal(r.entry?.bundleHash, v1.bundleHash);
  });

  it('says when the library has the activated skill disabled for that agent', async () => {
    const r = await sb.sf(['skit', 'disable', 'acme/kit:review', '--agent', 'opencode']);
    assert.equal(r.code, 0, r.stderr);
    const lib = new LibraryIndex(sfPaths({ SF_HOME: sb.sfHome }), 0);
    await lib.refresh();
    const { reviewDir } = await installed(sb);
    const disabled = lib.resolve(reviewQuery(reviewDir, Date.now()));
    assert.equal(disabled.resolution, 'exact_path');
    assert.equal(identityOf(disabled, 'review')['agent.skill.library.enabled'], false);
    const summarize = lib.resolve({ agent: 'opencode', name: 'summarize', hostScope: 'project', cwd: sb.project, at: msToNanos(Date.now()) });
    assert.equal(summarize.resolution, 'name_and_scope');
    assert.equal(identityOf(summarize, 'summarize')['agent.skill.library.enabled'], undefined, 'an enabled skill carries nothing extra');
  });

  it('the running observer credits a late plugin event to the release installed when it ran', async () => {
    await withObserver(sb, async (observer, loadedEvents) => {
      const v1 = await installed(sb);
      const usedAt = Date.now();
      await sleep(5);
      const v2 = await updateReview(sb, 'v2');
      // past the observer's library check interval, so it has seen the update before the event arrives
      await sleep(2100);
      await postActivation(observer.url, 'call_late0001', v1.reviewDir, usedAt);
      const [loaded] = await loadedEvents(1);
      assert.ok(loaded.includes(v1.bundleHash) && loaded.includes(v1.reviewHash), 'the v1 bundle and content hash');
      assert.ok(!loaded.includes(v2.bundleHash) && !loaded.includes(v2.reviewHash), 'not the release installed when the observer processed it');
      assert.match(loaded, /"exact_path"/);
    });
  });

  it('the running observer exports that a skill ran while the library has it disabled for that agent', async () => {
    await withObserver(sb, async (observer, loadedEvents) => {
      const { reviewDir } = await installed(sb);
      const r = await sb.sf(['skit', 'disable', 'acme/kit:review', '--agent', 'opencode']);
      assert.equal(r.code, 0, r.stderr);
      await sleep(2100);
      await postActivation(observer.url, 'call_off0001', reviewDir, Date.now());
      const [loaded] = await loadedEvents(1);
      assert.match(loaded, /"key":"agent\.skill\.library\.enabled","value":\{"boolValue":false\}/);
      assert.match(loaded, /"key":"agent\.skill\.id","value":\{"stringValue":"acme\/kit:review"\}/);
    });
  });
});

/** The real observer (in process) on the sandbox's $SF_HOME, with a file destination. */
async function withObserver(sb: InstallSandbox, fn: (observer: ObserverHandle, loadedEvents: (n: number) => Promise<string[]>) => Promise<void>): Promise<void> {
  const file = join(sb.root, 'telemetry.jsonl');
  const observer = await startObserver({
    env: { SF_HOME: sb.sfHome, HOME: sb.home }, port: 0, outboxPollMs: 50, housekeepingMs: 100,
    config: { ...DEFAULT_OBSERVE_CONFIG, batch: { maxRecords: 512, delayMs: 20 }, destinations: [{ name: 'local', type: 'file', path: file }] },
  });
  const loadedEvents = (n: number) =>
    waitFor(async () => {
      const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter((l) => l.includes('"agent.skill.loaded"'));
      return lines.length >= n && lines;
    }, 15_000, `${n} loaded event(s) in the file destination`);
  try {
    await fn(observer, loadedEvents);
  } finally {
    await observer.close();
  }
}

/** What the Forge OpenCode plugin posts for one skill tool call that ran at `atMs`. */
async function postActivation(url: string, callId: string, skillDir: string, atMs: number): Promise<void> {
  const base = { schema: 'forge/plugin-event/1', host: 'opencode', session_id: 'ses_asof0001', call_id: callId, skill_name: 'review' };
  for (const [kind, at] of [['skill.before', atMs], ['skill.after', atMs + 10]] as const) {
    const body = { ...base, kind, time: new Date(at).toISOString(), ...(kind === 'skill.after' ? { skill_dir: skillDir } : {}) };
    const res = await fetch(`${url}/forge/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200, await res.text());
  }
}
