import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTree } from '../../test-support/index.js';
import { startObserverDaemon } from '../../test-support/observer-daemon.js';
import { waitFor } from '../../test-support/otlp-sink.js';
import { installSandbox, kitTree, outbox, rootContents, type InstallSandbox } from '../../test-support/skit-install.js';
import { updateObserveConfig } from '../observer/config.js';
import type { InventoryEvent } from '../library/types.js';
import { logsRequestToEnvelopes } from '../telemetry/envelope-otlp.js';
import { decodeOtlpRequest } from '../telemetry/otlp/decode.js';
import type { OtlpLogsRequest } from '../telemetry/otlp/types.js';

/**
 * An update that adds or drops a contained skill, end to end: the built CLI writes the outbox,
 * a real observer daemon turns it into agent.skill.inventory.changed events in a file.
 */

/** acme/kit with these skills; `off` ones are published with default_enabled: false. */
function kit(version: string, skills: string[], off: string[] = []): Record<string, string> {
  const tree = kitTree(version, skills);
  for (const s of off) tree['README.md'] = tree['README.md'].replace(`path: skills/${s}\n    default_enabled: true`, `path: skills/${s}\n    default_enabled: false`);
  return tree;
}

async function publish(sb: InstallSandbox, tree: Record<string, string>): Promise<void> {
  await rm(sb.source, { recursive: true, force: true });
  await writeTree(sb.source, tree);
}

async function fileEvents(file: string) {
  const text = await readFile(file, 'utf8').catch(() => '');
  const out = [];
  for (const line of text.split('\n').filter((l) => l.includes('resourceLogs'))) {
    out.push(...logsRequestToEnvelopes((await decodeOtlpRequest('logs', Buffer.from(line), 'json')) as OtlpLogsRequest));
  }
  return out;
}

/**
 * Runs a real observer daemon over the sandbox's outbox with a file destination until the file
 * holds at least `count` events named `name`; returns them (and what the file holds) and stops it.
 */
async function observedEvents(sb: InstallSandbox, name: string, count: number) {
  const file = join(sb.root, 'telemetry.jsonl');
  await updateObserveConfig(join(sb.sfHome, 'config.json'), (o) => ({ ...o, destinations: [{ name: 'local', type: 'file', path: file }], batch: { maxRecords: 100, delayMs: 20 } }));
  const d = startObserverDaemon(sb.sfHome);
  try {
    const events = await waitFor(async () => {
      const es = (await fileEvents(file)).filter((e) => e.event_name === name);
      return es.length >= count ? es : undefined;
    }, 30_000, `${count} ${name} events in the file`);
    return { events, text: await readFile(file, 'utf8') };
  } finally {
    d.child.kill('SIGTERM');
    await d.exited;
  }
}

describe('inventory telemetry of updates that add or drop skills (built CLI, real observer)', function () {
  this.timeout(90_000);
  let sb: InstallSandbox;
  beforeEach(async () => {
    sb = await installSandbox('sf-inventory-');
  });
  afterEach(() => sb.cleanup());
  const sf = async (args: string[]) => {
    const r = await sb.sf(args);
    assert.equal(r.code, 0, r.stderr);
  };

  it('reports a skill an update brought as added (unless disabled for the agent) and one it dropped as removed with its hash', async () => {
    await publish(sb, kit('one', ['review', 'summarize']));
    await sf(['skit', 'install', sb.source, '--agent', 'claude-code', '--scope', 'project', '--yes']);
    // 'quiet' arrives switched off: it never becomes available to Claude Code
    await publish(sb, kit('two', ['review', 'summarize', 'lint', 'quiet'], ['quiet']));
    await sf(['skit', 'update', 'acme/kit']);
    const [two] = await sb.list();
    const summarizeHash = two.skills.find((s) => s.name === 'summarize')!.hash;
    await publish(sb, kit('two', ['review', 'lint', 'quiet'], ['quiet']));
    await sf(['skit', 'update', 'acme/kit']);
    assert.deepEqual(Object.keys(await rootContents(join(sb.project, '.claude', 'skills'))), ['lint', 'quiet', 'review'], 'summarize left the skill root');

    const records = (await outbox(sb.sfHome)) as unknown as InventoryEvent[];
    assert.deepEqual(records.map((r) => r.action), ['installed', 'updated', 'updated']);
    const marks = (r: InventoryEvent) => r.skills.filter((s) => s.change).map((s) => [s.id, s.change, s.enabled]);
    assert.deepEqual(marks(records[1]), [['acme/kit:lint', 'added', true], ['acme/kit:quiet', 'added', false]]);
    assert.deepEqual(marks(records[2]), [['acme/kit:summarize', 'removed', false]]);
    assert.equal(records[2].skills.find((s) => s.change === 'removed')!.content_hash, summarizeHash);
    assert.equal(records[2].previous_bundle_hash, two.bundleHash, 'the release summarize was part of');
    for (const r of records) assert.equal(r.project_root, sb.project, 'the record names the installation (project scope)');

    const { events, text } = await observedEvents(sb, 'agent.skill.inventory.changed', 6);
    const a = (e: (typeof events)[number], k: string) => e.attributes[k] as string | undefined;
    assert.deepEqual(events.map((e) => `${a(e, 'agent.skill.inventory.action')} ${a(e, 'agent.skill.id')}`), [
      'added acme/kit:review', 'added acme/kit:summarize', 'hash_changed acme/kit:review', 'hash_changed acme/kit:summarize', 'added acme/kit:lint', 'removed acme/kit:summarize',
    ]);
    const removed = events[5];
    assert.equal(a(removed, 'agent.skill.content.previous_hash'), summarizeHash);
    assert.equal(a(removed, 'agent.skill.content.hash'), undefined);
    assert.equal(a(removed, 'agent.skill.install.scope'), 'project');
    assert.equal(a(removed, 'artifact.hash'), two.bundleHash, 'a dropped skill is removed from the release it was in, not from the new one');
    assert.equal(a(events[4], 'artifact.hash'), records[1].bundle_hash, 'an added skill is in the new release');
    assert.ok(!text.includes(sb.project), 'the project root stays local');
  });

  it('records the release\'s declaration review with the change that brings it, and the observer emits agent.skill.audit.completed per skill', async () => {
    const tree = kitTree('one', ['review', 'lint']);
    // review declares what it does; lint ships a script it does not declare as a capability
    tree['README.md'] = tree['README.md']
      .replace('id: acme/kit\n', 'id: acme/kit\ncapabilities:\n  executables: [skills/lint/scripts/run.sh]\n')
      .replace('path: skills/review\n    default_enabled: true\n', 'path: skills/review\n    default_enabled: true\n    capabilities: [filesystem.read]\n    mutation_scopes: [none]\n');
    tree['skills/lint/scripts/run.sh'] = '#!/bin/sh\necho lint\n';
    await publish(sb, tree);
    await sf(['add', 'skit', sb.source, '--agent', 'claude-code,codex', '--yes']);
    await sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes']);
    await publish(sb, { ...tree, 'skills/review/SKILL.md': `${tree['skills/review/SKILL.md']}\nMore steps.\n` });
    await sf(['skit', 'update', 'acme/kit']);

    const records = (await outbox(sb.sfHome)) as unknown as InventoryEvent[];
    // one review per release change: on the first agent's record, not again for the second agent nor for the no-op reinstall
    assert.deepEqual(records.map((r) => [r.action, r.agent, r.audit?.stage]), [['installed', 'claude-code', 'install'], ['installed', 'codex', undefined], ['updated', 'claude-code', 'update'], ['updated', 'codex', undefined]]);
    const review = (r: InventoryEvent) => Object.fromEntries(r.audit!.skills.map((k) => [k.id, [k.declared, k.mutation_scopes, k.inferred]]));
    assert.deepEqual(review(records[0]), { 'acme/kit:review': [['filesystem.read'], ['none'], []], 'acme/kit:lint': [undefined, undefined, ['process.execute']] });
    assert.equal(records[0].audit!.ruleset_id, 'forge-declarations');

    const { events: audits } = await observedEvents(sb, 'agent.skill.audit.completed', 4);
    const a = (e: (typeof audits)[number], k: string) => e.attributes[k];
    assert.deepEqual(audits.map((e) => [a(e, 'agent.skill.audit.stage'), a(e, 'agent.skill.id')]), [['install', 'acme/kit:review'], ['install', 'acme/kit:lint'], ['update', 'acme/kit:review'], ['update', 'acme/kit:lint']]);
    assert.deepEqual(a(audits[1], 'agent.skill.capability.undeclared'), ['process.execute']);
    assert.deepEqual(a(audits[0], 'agent.skill.capability.declared'), ['filesystem.read']);
    assert.equal(a(audits[0], 'agent.skill.package.id'), 'acme/kit');
  });
});
