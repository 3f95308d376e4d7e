import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpLogRecord } from '../../core/telemetry/otlp/index.js';
import type { TimelinePage } from '../query/timeline.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import type { ObservationEventRow } from './rows.js';

/**
 * Events are deduplicated per (account, device, agent.skill.event.id) (docs/hub-telemetry.md
 * "Deduplication"): two agents on two devices of an account that report the same commit or
 * checkpoint with a deterministic event id are two deliveries, each normalized under its own
 * device. The account-wide dedupe kept whichever arrived first and dropped the other device's
 * outcome without a word, so arrival order (and a rebuild's order) picked the rows.
 */

const NOW = Date.UTC(2026, 7, 9, 20, 0, 0);
const AT = NOW - 2 * 60 * 60 * 1000;
const FINGERPRINT = 'rfp_twodevices00001';
const GIT_AI = { 'agent.skill.evidence.source': 'git_ai', 'git.ai.source': 'notes_ref' };

/** An activation of `skill` on a device, and the commit and checkpoint that device's Git AI reports for it. */
function deviceRecords(act: string, skill: string, session: string, lines: number): OtlpLogRecord[][] {
  const skillAttrs = { 'session.id': session, 'agent.skill.activation.id': act, 'agent.skill.package.id': 'owner/cq', 'agent.skill.id': `owner/cq:${skill}`, 'agent.skill.name': skill, 'artifact.version': '1.0.0' };
  const outcome = { ...GIT_AI, 'session.id': session, 'agent.skill.activation.ids': [act] };
  return [
    [
      skillRecord('agent.skill.selected', { ...skillAttrs, 'agent.skill.event.id': `${act}_sel`, 'agent.skill.phase': 'selected', 'agent.skill.trigger.type': 'implicit' }, AT),
      skillRecord('agent.skill.loaded', { ...skillAttrs, 'agent.skill.event.id': `${act}_load`, 'agent.skill.phase': 'loaded', 'agent.skill.result': 'ok' }, AT + 100),
    ],
    [
      // the same commit and checkpoint on both clones: the bridge derives the same event ids from the note
      skillRecord('git.ai.commit.attributed', { ...outcome, 'agent.skill.event.id': 'gitai_commit_4b825dc6', 'git.ai.commit.sha': '4b825dc642cb6eb9a060e54bf8d69288fbee4904', 'git.ai.lines.committed.count': lines }, AT + 20_000),
      skillRecord('agent.change.summary', { ...outcome, 'agent.skill.event.id': 'chg_t_1111', 'agent.change.boundary': 'checkpoint', 'git.ai.checkpoint.id': 't_11111111111111', 'agent.change.line.added.count': lines }, AT + 21_000),
    ],
  ];
}

interface TwoDevices {
  f: TelemetryFixture;
  user: TelemetryUser;
  d1: TelemetryUser;
  d2: TelemetryUser;
  repo: string;
}

async function twoDevices(login: string): Promise<TwoDevices> {
  const f = await telemetryFixture({ now: () => NOW });
  const d1 = f.user(login);
  const d2 = f.user(login);
  const repo = await f.linkRepository(d1, `${login}/app`, [FINGERPRINT]);
  return { f, user: d1, d1, d2, repo };
}

async function send(t: TwoDevices, device: TelemetryUser, records: OtlpLogRecord[]): Promise<void> {
  const body = await encodeOtlpRequest(logsRequest(records, { 'service.name': 'claude-code', 'forge.repository.fingerprint': FINGERPRINT }), 'protobuf');
  assert.equal((await t.f.post('logs', body, { auth: device.device })).status, 200);
}

/** The account's rows and timeline with account, device and repository ids replaced by labels, in a fixed order. */
async function canonical(t: TwoDevices) {
  const reader = t.f.telemetry.reader();
  const timeline = await t.f.getJson<TimelinePage>(`/api/v1/telemetry/repositories/${t.repo}/timeline`, t.user.pat);
  let text = JSON.stringify({ events: [...reader.allEvents()], activations: [...reader.allActivations()], timeline }, (k, v) => (k === 'normalizerVersion' || k === 'rawBatchId' ? undefined : v));
  for (const [id, label] of [[t.user.id, 'ACCOUNT'], [t.d1.deviceId, 'D1'], [t.d2.deviceId, 'D2'], [t.repo, 'REPO']]) text = text.split(id).join(label);
  const out = JSON.parse(text) as { events: unknown[]; activations: unknown[]; timeline: TimelinePage };
  const sorted = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
  return { events: sorted(out.events), activations: sorted(out.activations), sessions: sorted(out.timeline.sessions), gaps: out.timeline.gaps };
}

describe('hub projections: events are deduplicated per device (hub/projections/apply)', () => {
  const open: TelemetryFixture[] = [];
  afterEach(async () => {
    for (const f of open.splice(0)) await f.cleanup();
  });

  it('keeps both devices\' outcomes for one event id, whichever device arrives first, and a rebuild reproduces them', async () => {
    const runs = [];
    for (const order of [['d1', 'd2'], ['d2', 'd1']] as const) {
      const t = await twoDevices(`twodev${order[0]}`);
      open.push(t.f);
      const records = { d1: deviceRecords('act_c1', 'maintainability', 'sess_c1', 50), d2: deviceRecords('act_c2', 'testing', 'sess_c2', 40) };
      for (const step of [0, 1]) for (const d of order) await send(t, t[d], records[d][step]);
      await t.f.telemetry.drain();

      const page = await t.f.getJson<TimelinePage>(`/api/v1/telemetry/repositories/${t.repo}/timeline`, t.user.pat);
      const activation = (device: TelemetryUser, act: string) => page.sessions.filter((s) => s.deviceId === device.deviceId).flatMap((s) => s.activations).find((a) => a.activationId === act);
      for (const [device, act, lines] of [[t.d1, 'act_c1', 50], [t.d2, 'act_c2', 40]] as const) {
        const view = activation(device, act);
        assert.deepEqual(view?.changes.map((c) => [c.eventId, c.counts['line.added']]), [['chg_t_1111', lines]], `${act}: its own device's checkpoint`);
        // a Git AI commit record is a git_ai_attribution_outcomes row of the activation
        assert.deepEqual(view?.gitAiOutcomes.map((o) => o.eventId), ['gitai_commit_4b825dc6'], `${act}: its own device's commit`);
        const row = await t.f.getJson<ObservationEventRow>(`/api/v1/telemetry/events/gitai_commit_4b825dc6?device=${device.deviceId}`, t.user.pat);
        assert.equal(row.attributes['git.ai.lines.committed.count'], lines);
      }
      // without a device, the id names the row of the lowest device id, whichever came first
      const first = [t.d1, t.d2].sort((a, b) => (a.deviceId < b.deviceId ? -1 : 1))[0];
      assert.equal((await t.f.getJson<ObservationEventRow>('/api/v1/telemetry/events/chg_t_1111', t.user.pat)).deviceId, first.deviceId);

      const live = await canonical(t);
      await t.f.telemetry.rebuild('1.1.0-device-dedupe');
      assert.deepStrictEqual(await canonical(t), live, 'a rebuild reproduces the live rows');
      runs.push(live);
    }
    assert.deepStrictEqual(runs[1], runs[0], 'the same rows whichever device arrived first');
  });

  it('normalizes byte-identical bytes from a second device under that device', async () => {
    const t = await twoDevices('identical');
    open.push(t.f);
    const [activation, outcomes] = deviceRecords('act_same', 'maintainability', 'sess_same', 7);
    for (const d of [t.d1, t.d2]) await send(t, d, [...activation, ...outcomes]);
    await t.f.telemetry.drain();
    const reader = t.f.telemetry.reader();
    for (const d of [t.d1, t.d2]) {
      assert.ok(reader.getActivation(t.user.id, 'act_same', d.deviceId), 'each device has its activation');
      assert.equal(reader.getChange(t.user.id, 'chg_t_1111', d.deviceId)?.deviceId, d.deviceId, 'and its change outcome');
    }
    assert.equal([...reader.allEvents()].length, 8);
    const live = await canonical(t);
    await t.f.telemetry.rebuild('1.1.0-device-dedupe');
    assert.deepStrictEqual(await canonical(t), live);
  });

  it('pages the timeline through both devices\' events with one id and one time', async () => {
    const t = await twoDevices('paging');
    open.push(t.f);
    for (const [d, act] of [[t.d1, 'act_p1'], [t.d2, 'act_p2']] as const) await send(t, d, deviceRecords(act, 'maintainability', `sess_${act}`, 3).flat());
    await t.f.telemetry.drain();
    let pages = 0;
    let cursor: string | undefined;
    do {
      const page = await t.f.getJson<TimelinePage>(`/api/v1/telemetry/repositories/${t.repo}/timeline?limit=1${cursor ? `&cursor=${cursor}` : ''}`, t.user.pat);
      assert.ok(page.sessions.length > 0);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    assert.equal(pages, 8, 'one page per event: a page boundary between the two commits skips neither');
  });

  it('still deduplicates a device\'s own replays of an event id', async () => {
    const t = await twoDevices('ownreplay');
    open.push(t.f);
    const [activation, outcomes] = deviceRecords('act_own', 'maintainability', 'sess_own', 5);
    await send(t, t.d1, [...activation, ...outcomes]);
    // a re-chunked retry: other bytes (another batch), the same event ids
    await send(t, t.d1, outcomes.slice().reverse());
    await t.f.telemetry.drain();
    assert.equal([...t.f.telemetry.reader().allEvents()].length, 4);
  });
});
