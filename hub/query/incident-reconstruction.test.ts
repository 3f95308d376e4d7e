import assert from 'node:assert/strict';
import type { EvidenceView } from './evidence.js';
import type { TimelinePage } from './timeline.js';
import type { UsageReport } from './usage.js';
import { deliver, deliverGoldenFixtures, GOLDEN_RECEIPT_MS, loadOtlpFixture, setUpAccount } from '../test-support/otlp-fixtures.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';

/**
 * The two deleted-skill incidents, reconstructed from metadata-only golden fixtures through the
 * query API, step by step as the spec lists them ("How the deleted-skill incidents become
 * diagnosable").
 */

const WINDOW = 'from=2026-08-01T00:00:00Z&to=2026-08-11T00:00:00Z';

async function load(name: string): Promise<{ f: TelemetryFixture; user: TelemetryUser; repo: string }> {
  const f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
  const user = f.user('dev');
  const fx = await loadOtlpFixture(name);
  assert.equal(fx.account.contentCollection, false, 'the reconstruction must work from metadata-only telemetry');
  const repos = await setUpAccount(f, user, fx);
  for (const r of await deliver(f, user, fx)) assert.deepEqual([r.status, r.partialSuccess], [200, null]);
  await f.telemetry.drain();
  return { f, user, repo: [...repos.keys()][0] };
}

describe('hub incident reconstruction (metadata only)', () => {
  it('JFDI-style unsafe autonomy, steps 1-5', async () => {
    const { f, user, repo } = await load('jfdi-unsafe-autonomy');
    try {
      const ev = await f.getJson<EvidenceView>(`/api/v1/telemetry/skits/vibes/jfdi/skills/jfdi/evidence?${WINDOW}`, user.pat);
      // 1. the audit reports broad trigger breadth and authority/approval/production/credential risk flags
      assert.equal(ev.audits.length, 1);
      assert.equal(ev.audits[0].triggerBreadth, 'broad');
      for (const flag of ['authority_expansion', 'approval_suppression', 'production_mutation', 'credential_reuse']) assert.ok(ev.audits[0].riskFlags.includes(flag), flag);
      assert.deepEqual([ev.audits[0].authorityEffect, ev.audits[0].confirmationEffect], ['expands', 'suppresses']);
      // 2. the selection was implicit (a broad description match), under full-access autonomy
      assert.equal(ev.activations.length, 1);
      const act = ev.activations[0];
      assert.deepEqual([act.triggerType, act.triggerSource, act.selectorType], ['implicit', 'frontmatter_description', 'model']);
      assert.deepEqual([act.autonomyMode, act.approvalMode, act.sandboxMode], ['full_access', 'never', 'unrestricted']);
      // 3. downstream actions carry mutation scope, risk, approval state and every active activation id
      assert.deepEqual(
        ev.actions.map((a) => [a.actionType, a.scope, a.risk, a.approvalState, a.activationIds, a.attributionFidelity]),
        [
          ['git.push', 'remote_repository', 'high', 'unknown', ['act_jfdi_01'], 'exact'],
          ['secret.use', 'external_service', 'high', 'unknown', ['act_jfdi_01'], 'exact'],
          ['cloud.deploy', 'production', 'critical', 'suppressed', ['act_jfdi_01'], 'exact'],
        ],
      );
      // suppression is claimed only where the host exposed the exact policy decision
      assert.deepEqual(act.policyDecisions.map((p) => [p.capability, p.decision, p.approvalState, p.policySource]), [['cloud.deploy', 'allowed', 'suppressed', 'host']]);
      // 4. stop, rollback, incident, disable and uninstall with structured reasons
      assert.deepEqual(
        ev.feedback.map((x) => [x.kind, x.interventionType ?? x.incidentClass ?? null, x.reasonCode]),
        [
          ['intervention', 'stop', 'authority_expansion'],
          ['intervention', 'rollback', 'production_risk'],
          ['incident', 'authority_safety', 'approval_suppression'],
          ['disable', null, 'authority_expansion'],
          ['uninstall', null, 'authority_expansion'],
        ],
      );
      // 5. the exact release/hash, and whether each risky capability was declared, inferred and observed
      assert.deepEqual(ev.releases, [{ artifactVersion: '0.4.1', artifactHash: act.artifactHash, contentHash: act.contentHash, activations: 1 }]);
      const caps = Object.fromEntries(ev.capabilities.map((c) => [c.capability, [c.declared, c.inferred, c.observed]]));
      assert.deepEqual(caps['cloud.deploy'], [false, true, true]);
      assert.deepEqual(caps['git.push'], [false, true, true]);
      assert.deepEqual(caps['secret.use'], [false, true, true]);
      assert.deepEqual(caps['filesystem.write'], [true, true, false]);

      // the same story on the repository timeline: one session, one activation with its actions,
      // interventions and policy decision; the trace-less lifecycle events are listed as gaps
      const page = await f.getJson<TimelinePage>(`/api/v1/telemetry/repositories/${repo}/timeline?${WINDOW}`, user.pat);
      const session = page.sessions.find((s) => s.sessionId === 'sess_jfdi')!;
      assert.equal(session.activations.length, 1);
      const a = session.activations[0];
      assert.equal(a.load, 'complete');
      assert.equal(a.actions.length, 3);
      assert.deepEqual(a.interventions.map((x) => x.kind), ['intervention', 'intervention', 'incident']);
      assert.equal(a.policyDecisions.length, 1);
      const sessionless = page.sessions.find((s) => s.sessionId === undefined)!;
      assert.deepEqual(sessionless.events.map((e) => e.eventName), ['agent.skill.audit.completed', 'agent.skill.inventory.changed', 'agent.skill.inventory.changed']);
      assert.deepEqual(page.gaps.find((g) => g.kind === 'missing_session')?.sample.sort(), ['evt_jfdi_01', 'evt_jfdi_11', 'evt_jfdi_12']);
    } finally {
      await f.cleanup();
    }
  });

  it('maintainability-style over-triggering, steps 1-5', async () => {
    const { f, user, repo } = await load('maintainability-overreach');
    try {
      const ev = await f.getJson<EvidenceView>(`/api/v1/telemetry/skits/owner/code-quality/skills/maintainability/evidence?${WINDOW}`, user.pat);
      // 1. the static audit reports broad implicit triggering, scope expansion and architecture override
      assert.deepEqual(ev.audits[0].riskFlags, ['broad_implicit_trigger', 'scope_expansion', 'architecture_override']);
      // 2. the problem selection was implicit (general feature work), not an explicit maintainability request
      const [feature, codex] = ev.activations;
      assert.deepEqual([feature.triggerType, feature.triggerSource], ['implicit', 'frontmatter_description']);
      assert.deepEqual([codex.triggerType, codex.triggerSource], ['explicit', 'slash_command']);
      assert.deepEqual(ev.triggers, { explicit: 1, implicit: 1, other: 0, sources: { frontmatter_description: 1, slash_command: 1 } });
      // 3. the change summary is unusually large and mostly outside the pre-change observed file set
      const big = ev.changes.find((c) => c.activationIds.includes(feature.activationId))!;
      assert.deepEqual([big.counts['file.modified'], big.counts['line.added'], big.counts.top_level_area], [48, 2100, 9]);
      assert.deepEqual(big.scope, { outsideInitialScope: 31, source: 'pre_mutation_observed', confidence: 'inferred', baselineCount: 4, newPaths: 6 });
      // 4. corrections, a rejected diff and a disable carry overbroad/scope/architecture reason codes
      assert.deepEqual(
        ev.feedback.map((x) => [x.interventionType, x.reasonCode, x.activationId]),
        [
          ['reject_diff', 'overbroad_trigger', feature.activationId],
          ['scope_reduction', 'scope_expansion', feature.activationId],
          ['disable_skill', 'architecture_override', feature.activationId],
        ],
      );
      // 5. cohorts by version, host, model and skill combination isolate the behaviour to 2.3.0 on Claude Code
      assert.deepEqual(
        ev.cohorts.map((c) => [c.version, c.host, c.model, c.withSkills, c.activations, c.interventions, c.incidents]),
        [
          ['2.3.0', 'claude_code', 'claude-sonnet-4', [], 1, 3, 0],
          ['2.4.0', 'codex', 'gpt-5-codex', [], 1, 0, 0],
        ],
      );
      const usage = await f.getJson<UsageReport>(`/api/v1/telemetry/skits/owner/code-quality/skills/maintainability/usage?${WINDOW}`, user.pat);
      assert.deepEqual(usage.versions.map((v) => [v.version, v.activations, v.interventions]), [['2.3.0', 1, 3], ['2.4.0', 1, 0]]);
      assert.deepEqual(usage.hosts.map((h) => [h.host, h.activations]), [['claude_code', 1], ['codex', 1]]);
      const page = await f.getJson<TimelinePage>(`/api/v1/telemetry/repositories/${repo}/timeline?${WINDOW}`, user.pat);
      assert.deepEqual(page.sessions.filter((s) => s.sessionId).map((s) => [s.sessionId, s.hostName, s.activations.length]), [['sess_codex', 'codex', 1], ['sess_feat', 'claude_code', 1]]);
    } finally {
      await f.cleanup();
    }
  });

  it('never credits a skill with a capability it used only in shared or inferred actions, and counts each fidelity apart', async () => {
    const f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
    try {
      const user = f.user('dev');
      await deliverGoldenFixtures(f, user);
      await f.telemetry.drain();
      const capabilities = async (skill: string) => {
        const ev = await f.getJson<EvidenceView>(`/api/v1/telemetry/skits/owner/code-quality/skills/${skill}/evidence?from=0`, user.pat);
        const byActions = (type: string) => ev.actions.filter((a) => a.actionType === type).map((a) => a.attributionFidelity);
        return { ev, cap: (name: string) => ev.capabilities.find((c) => c.capability === name)!, byActions };
      };
      // testing's only process.execute (evt_multi_07) was shared with maintainability
      const testing = await capabilities('testing');
      assert.deepEqual(testing.byActions('process.execute'), ['shared']);
      assert.deepEqual(testing.cap('process.execute'), { capability: 'process.execute', declared: false, inferred: false, observed: false, actionsByFidelity: { exact: 0, shared: 1, inferred: 0, unknown: 0 } });
      // maintainability's git.commit is inferred only; its filesystem.write mixes all three fidelities
      const maint = await capabilities('maintainability');
      assert.deepEqual([maint.cap('git.commit').observed, maint.cap('git.commit').actionsByFidelity], [false, { exact: 0, shared: 0, inferred: 1, unknown: 0 }]);
      const writes = maint.byActions('filesystem.write');
      const count = (fid: string) => writes.filter((x) => x === fid).length;
      assert.deepEqual(maint.cap('filesystem.write').actionsByFidelity, { exact: count('exact'), shared: count('shared'), inferred: count('inferred'), unknown: count('unknown') });
      assert.ok(count('exact') > 0 && count('shared') > 0 && count('inferred') > 0, JSON.stringify(writes));
      assert.equal(maint.cap('filesystem.write').observed, true);
    } finally {
      await f.cleanup();
    }
  });

  it('does not show one account another account’s evidence', async () => {
    const { f, user, repo } = await load('jfdi-unsafe-autonomy');
    try {
      const other = f.user('mallory');
      const ev = await f.getJson<EvidenceView>(`/api/v1/telemetry/skits/vibes/jfdi/skills/jfdi/evidence?${WINDOW}`, other.pat);
      assert.deepEqual([ev.activations.length, ev.audits.length, ev.feedback.length], [0, 0, 0]);
      assert.equal((await f.app.request(`/api/v1/telemetry/repositories/${repo}/timeline`, { headers: other.pat })).status, 404);
      assert.equal((await f.app.request(`/api/v1/telemetry/repositories/${repo}/timeline`, { headers: user.device })).status, 403);
      assert.equal((await f.app.request(`/api/v1/telemetry/accounts/${user.login}/settings`, { headers: other.pat })).status, 404);
    } finally {
      await f.cleanup();
    }
  });
});
