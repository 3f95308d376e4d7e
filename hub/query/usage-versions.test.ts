import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';
import type { UsageReport } from './usage.js';

/** Usage per version tells releases apart: a version is a release only together with its bundle hash. */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);
const SKIT = 'provisional/0123456789abcdef';

describe('hub usage per version: one bucket per release (version and bundle hash)', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  const loaded = (act: string, release: OtlpAttributes) =>
    skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': act, 'agent.skill.id': `${SKIT}:gs`, 'agent.skill.package.id': SKIT, ...release }, T0);

  it('splits releases sharing a mutable or missing version, and leaves a missing version out', async () => {
    f = await telemetryFixture({ now: () => T0 + 3_600_000 });
    const u = f.user('alice');
    const records = [
      // two commits of git branch `main`: the observer sent the ref as the version
      loaded('act_1', { 'artifact.version': 'main', 'artifact.hash': 'sha256:aaaa' }),
      loaded('act_2', { 'artifact.version': 'main', 'artifact.hash': 'sha256:bbbb' }),
      loaded('act_3', { 'artifact.version': 'main', 'artifact.hash': 'sha256:bbbb' }),
      // a local directory edited and updated: no version, two bundles
      loaded('act_4', { 'artifact.hash': 'sha256:cccc' }),
      loaded('act_5', { 'artifact.hash': 'sha256:dddd' }),
      // nothing known of the release
      loaded('act_6', {}),
      // feedback on act_1 counts in act_1's release, not in the other `main`
      skillRecord('agent.user.intervention', { 'agent.skill.activation.id': 'act_1', 'agent.user.intervention.type': 'negative_feedback' }, T0 + 10),
    ];
    assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest(records), 'protobuf'), { auth: u.device })).status, 200);
    await f.telemetry.drain();
    const usage = await f.getJson<UsageReport>(`/api/v1/telemetry/skits/${SKIT}/usage?from=2026-08-01`, u.pat);
    const versions = usage.versions.map(({ version, artifactHash, activations, interventions }) => ({ version, artifactHash, activations, interventions }));
    assert.deepEqual(versions, [
      { version: undefined, artifactHash: undefined, activations: 1, interventions: 0 },
      { version: undefined, artifactHash: 'sha256:cccc', activations: 1, interventions: 0 },
      { version: undefined, artifactHash: 'sha256:dddd', activations: 1, interventions: 0 },
      { version: 'main', artifactHash: 'sha256:aaaa', activations: 1, interventions: 1 },
      { version: 'main', artifactHash: 'sha256:bbbb', activations: 2, interventions: 0 },
    ]);
    assert.ok(usage.versions.every((v) => !('version' in v && v.version === '') && !('artifactHash' in v && v.artifactHash === '')), 'absent, never ""');
    assert.equal(usage.totals.activations, 6);
  });
});
