import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileEvents, freePort, startObserverDaemon, startOtlpReceiver, waitFor, type DaemonProcess, type FlatEvent, type OtlpReceiver } from './observe.js';
import type { HostSandbox } from './skit-install.js';

/**
 * The Stage 2 acceptance path shared by the three real-host tests: `sf observe install` with a
 * local file destination and a generic OTLP receiver, the observer daemon as a child process,
 * then checks that both destinations hold the same normalized, metadata-only activation events
 * of the one child the host used, none of its sibling, and (after `sf skit disable`) inventory and
 * intervention events linked to that child's activation.
 */

export interface Stage2 {
  box: HostSandbox;
  receiver: OtlpReceiver;
  daemon: DaemonProcess;
  port: number;
  file: string;
  /** events from both destinations */
  both(): Promise<{ file: FlatEvent[]; otlp: FlatEvent[]; fileText: string; otlpText: string }>;
  stop(): Promise<void>;
}

/** Installs observability for `agent` into the sandbox (plus `extra` destination specs) and starts the observer. */
export async function startStage2(box: HostSandbox, agent: string, extra: string[] = []): Promise<Stage2> {
  const receiver = await startOtlpReceiver();
  const port = await freePort();
  const file = join(box.root, 'observations.jsonl');
  await box.sf(['observe', 'install', '--yes', '--no-service', '--agents', agent, '--port', String(port), '--destination', `file:${file}`, '--destination', `otlp:${receiver.url}`, ...extra.flatMap((d) => ['--destination', d])]);
  let daemon: DaemonProcess;
  try {
    daemon = await startObserverDaemon({ HOME: box.home, SF_HOME: box.sfHome });
  } catch (e) {
    await receiver.close();
    throw e;
  }
  return {
    box, receiver, daemon, port, file,
    async both() {
      const f = await fileEvents(file);
      return { file: f.events, otlp: receiver.events(), fileText: f.text, otlpText: Buffer.concat(receiver.raw).toString('latin1') };
    },
    async stop() {
      await daemon.stop();
      await receiver.close();
    },
  };
}

const ACTIVATION = new Set(['agent.skill.selected', 'agent.skill.load_started', 'agent.skill.loaded', 'agent.skill.load_failed']);
const a = (e: FlatEvent, k: string) => e.attributes[k];

export interface ActivationExpectation {
  skillId: string;
  skitId: string;
  contentHash: string;
  bundleHash: string;
  host: 'claude_code' | 'codex' | 'opencode';
  sessionId?: string;
  trigger: 'implicit' | 'explicit';
  fidelity: { selected: string; loaded: string };
  /** agent.skill.library.resolution: how the observer matched the host's report to the library */
  resolution: 'name_and_scope' | 'exact_path';
  /** the session was registered, so its repository fingerprints are on the resource */
  registered: boolean;
  /** texts that must appear in no destination (prompt, skill bodies, tool output) */
  forbidden: string[];
}

/** Waits for selected + loaded of the skill in both destinations and checks them; returns the activation id. */
export async function expectActivation(s: Stage2, x: ActivationExpectation): Promise<string> {
  const has = (evs: FlatEvent[]) => evs.some((e) => e.name === 'agent.skill.loaded' && a(e, 'agent.skill.id') === x.skillId);
  const got = await waitFor('agent.skill.loaded in the file and the OTLP receiver', async () => {
    const b = await s.both();
    return has(b.file) && has(b.otlp) ? b : undefined;
  }, 30_000);
  const pick = (evs: FlatEvent[]) => evs.filter((e) => ACTIVATION.has(e.name) && a(e, 'agent.skill.id') === x.skillId);
  const ids = (evs: FlatEvent[]) => evs.map((e) => `${e.name} ${String(a(e, 'agent.skill.event.id'))}`).sort();
  assert.deepEqual(ids(pick(got.file)), ids(pick(got.otlp)), 'the file and the OTLP receiver hold the same events');
  const events = pick(got.file);
  const selected = events.filter((e) => e.name === 'agent.skill.selected');
  const loaded = events.filter((e) => e.name === 'agent.skill.loaded');
  assert.equal(selected.length, 1, `one selection: ${JSON.stringify(events.map((e) => e.name))}`);
  assert.equal(loaded.length, 1, 'one load');
  for (const e of [...selected, ...loaded]) {
    assert.equal(a(e, 'agent.skill.package.id'), x.skitId);
    assert.equal(a(e, 'agent.skill.content.hash'), x.contentHash);
    assert.equal(a(e, 'artifact.version'), undefined, 'a local SKIT has no release version (its release is its bundle hash)');
    assert.equal(a(e, 'agent.skill.trigger.type'), x.trigger);
    assert.equal(a(e, 'agent.host.name'), x.host);
    assert.equal(e.resource['agent.host.name'], x.host);
    if (x.sessionId) assert.equal(a(e, 'session.id'), x.sessionId);
    else assert.equal(typeof a(e, 'session.id'), 'string');
    assert.equal(a(e, 'agent.skill.activation.id'), a(selected[0], 'agent.skill.activation.id'));
    assert.equal(a(e, 'agent.skill.library.resolution'), x.resolution);
    assert.equal(typeof e.resource['forge.repository.fingerprint'] === 'string', x.registered, 'repository fingerprints only for a registered session');
    assert.equal(a(e, 'forge.repository.resolution'), x.registered ? undefined : 'repo_unresolved');
  }
  assert.equal(a(selected[0], 'agent.skill.evidence.fidelity'), x.fidelity.selected);
  assert.equal(a(loaded[0], 'agent.skill.evidence.fidelity'), x.fidelity.loaded);
  assert.equal(a(loaded[0], 'agent.skill.result'), 'ok');
  assert.equal(a(loaded[0], 'artifact.hash'), x.bundleHash, 'the release: a local SKIT is identified by its bundle hash');
  const sibling = x.skillId.replace(/:[^:]+$/, ':summarize');
  for (const evs of [got.file, got.otlp]) assert.ok(!evs.some((e) => ACTIVATION.has(e.name) && a(e, 'agent.skill.id') === sibling), 'the sibling skill shows no activation');
  for (const text of [got.fileText, got.otlpText]) for (const f of x.forbidden) assert.ok(!text.includes(f), `no content: "${f}" must not be exported`);
  return String(a(selected[0], 'agent.skill.activation.id'));
}

/** After `sf skit disable <skill>`: inventory (disabled) and an intervention linked to the activation, in both destinations. */
export async function expectDisableLinked(s: Stage2, skillId: string, activationId: string, agent: string, scope: 'project' | 'user' = 'project'): Promise<void> {
  await s.box.sf(['skit', 'disable', skillId, '--agent', agent, '--scope', scope]);
  const ok = (evs: FlatEvent[]) =>
    evs.some((e) => e.name === 'agent.skill.inventory.changed' && a(e, 'agent.skill.id') === skillId && a(e, 'agent.skill.inventory.action') === 'disabled') &&
    evs.some((e) => e.name === 'agent.user.intervention' && a(e, 'agent.skill.id') === skillId && a(e, 'agent.skill.activation.id') === activationId && a(e, 'agent.user.intervention.type') === 'disable_skill');
  await waitFor('inventory + intervention events in both destinations', async () => {
    const b = await s.both();
    return ok(b.file) && ok(b.otlp) ? true : undefined;
  }, 20_000);
}
