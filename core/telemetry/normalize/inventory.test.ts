import assert from 'node:assert/strict';
import type { InventoryEvent } from '../../library/types.js';
import { GREETINGS, HELLO_HASH, BYE_HASH, CAPTURE_PROJECT, captureLibrary, captureRequest, fakeContext } from '../../../test-support/telemetry.js';
import type { OtlpLogsRequest } from '../otlp/types.js';
import { createNormalizer } from './index.js';

const record = (action: InventoryEvent['action'], extra: Partial<InventoryEvent> = {}): InventoryEvent => ({
  schema: 'forge/inventory-event/1', event_id: `ev-${action}`, event_name: 'agent.skill.inventory.changed', timestamp: '2026-11-30T03:30:00.000Z',
  skit_id: GREETINGS, release: { version: '1.2.0' }, bundle_hash: 'sha256:' + '9'.repeat(64), action, agent: 'claude-code', scope: 'project', project_root: `/${CAPTURE_PROJECT}`,
  actor_type: 'user', installer_version: '0.1.0',
  skills: [{ id: `${GREETINGS}:hello-skill`, content_hash: HELLO_HASH, enabled: action !== 'disabled' && action !== 'removed' }, { id: `${GREETINGS}:bye-skill`, content_hash: BYE_HASH, enabled: true }],
  ...extra,
});

describe('inventory outbox records', () => {
  it('become inventory.changed per skill; an unchanged skill of an update emits nothing', () => {
    const n = createNormalizer(fakeContext(captureLibrary()));
    const added = n.inventory(record('installed')).events;
    assert.deepEqual(added.map((e) => [e.event_name, e.attributes['agent.skill.inventory.action'], e.attributes['agent.skill.id']]), [
      ['agent.skill.inventory.changed', 'added', `${GREETINGS}:hello-skill`],
      ['agent.skill.inventory.changed', 'added', `${GREETINGS}:bye-skill`],
    ]);
    assert.equal(added[0].attributes['agent.skill.package.id'], GREETINGS);
    assert.equal(added[0].attributes['agent.skill.content.hash'], HELLO_HASH);
    const updated = n.inventory(record('updated', { skills: [{ id: `${GREETINGS}:hello-skill`, content_hash: 'sha256:' + '3'.repeat(64), previous_hash: HELLO_HASH, enabled: true }, { id: `${GREETINGS}:bye-skill`, content_hash: BYE_HASH, enabled: true }] })).events;
    assert.equal(updated.length, 1);
    assert.equal(updated[0].attributes['agent.skill.inventory.action'], 'hash_changed');
    assert.equal(updated[0].attributes['agent.skill.content.previous_hash'], HELLO_HASH);
    // the same outbox record again (the observer re-read it): nothing new
    assert.deepEqual(n.inventory(record('installed')).events, []);
  });

  it('an install does not report a skill that is off by default as added: it did not become available (as in an update)', () => {
    const n = createNormalizer(fakeContext(captureLibrary()));
    const quiet = { id: `${GREETINGS}:quiet-skill`, content_hash: HELLO_HASH, enabled: false };
    const events = n.inventory(record('installed', { event_id: 'ev-quiet', skills: [{ id: `${GREETINGS}:hello-skill`, content_hash: HELLO_HASH, enabled: true }, quiet] })).events;
    assert.deepEqual(events.map((e) => [e.attributes['agent.skill.inventory.action'], e.attributes['agent.skill.id']]), [['added', `${GREETINGS}:hello-skill`]]);
    // turning it on later is the change that makes it available
    const on = n.inventory(record('enabled', { event_id: 'ev-on', skills: [{ ...quiet, enabled: true }] })).events;
    assert.deepEqual(on.map((e) => [e.attributes['agent.skill.inventory.action'], e.attributes['agent.skill.id']]), [['enabled', `${GREETINGS}:quiet-skill`]]);
  });

  it('an update reports a skill the release added as added and one it dropped as removed, with its previous hash', () => {
    const n = createNormalizer(fakeContext(captureLibrary()));
    const NEW_HASH = 'sha256:' + '4'.repeat(64);
    const out = n.inventory(record('updated', {
      skills: [
        { id: `${GREETINGS}:hello-skill`, content_hash: HELLO_HASH, enabled: true },
        { id: `${GREETINGS}:wave-skill`, content_hash: NEW_HASH, enabled: true, change: 'added' },
        // new, but switched off for this agent: it did not become available to it
        { id: `${GREETINGS}:quiet-skill`, content_hash: NEW_HASH, enabled: false, change: 'added' },
        { id: `${GREETINGS}:bye-skill`, content_hash: BYE_HASH, enabled: false, change: 'removed' },
      ],
    }));
    assert.deepEqual(out.events.map((e) => [e.attributes['agent.skill.inventory.action'], e.attributes['agent.skill.id'], e.attributes['agent.skill.content.hash'], e.attributes['agent.skill.content.previous_hash']]), [
      ['added', `${GREETINGS}:wave-skill`, NEW_HASH, undefined],
      ['removed', `${GREETINGS}:bye-skill`, undefined, BYE_HASH],
    ]);
    assert.deepEqual(out.metrics, [], 'a skill an update dropped is no user intervention');
  });

  it('a record with the release\'s declaration review emits agent.skill.audit.completed per skill, undeclared = inferred minus declared', () => {
    const n = createNormalizer(fakeContext(captureLibrary()));
    const audit: InventoryEvent['audit'] = {
      ruleset_id: 'forge-declarations', ruleset_version: '1.0.0', stage: 'install',
      skills: [
        { id: `${GREETINGS}:hello-skill`, content_hash: HELLO_HASH, declared: ['filesystem.read'], mutation_scopes: ['none'], inferred: ['process.execute'], findings: 2 },
        { id: `${GREETINGS}:bye-skill`, content_hash: BYE_HASH, inferred: [], findings: 0 },
        { id: `${GREETINGS}:wave-skill`, content_hash: `sha256:${'4'.repeat(64)}`, declared: ['process.execute'], inferred: ['process.execute'], findings: 0 },
      ],
    };
    const audits = n.inventory(record('installed', { audit })).events.filter((e) => e.event_name === 'agent.skill.audit.completed');
    assert.equal(audits.length, 3);
    const [hello, bye, wave] = audits.map((e) => e.attributes);
    assert.deepEqual(
      [hello['agent.skill.id'], hello['agent.skill.audit.ruleset.id'], hello['agent.skill.audit.ruleset.version'], hello['agent.skill.audit.stage'], hello['agent.skill.package.id'], hello['agent.skill.content.hash'], hello['agent.skill.evidence.source']],
      [`${GREETINGS}:hello-skill`, 'forge-declarations', '1.0.0', 'install', GREETINGS, HELLO_HASH, 'static_analysis'],
    );
    assert.deepEqual(hello['agent.skill.capability.declared'], ['filesystem.read']);
    assert.deepEqual(hello['agent.skill.capability.inferred'], ['process.execute']);
    assert.deepEqual(hello['agent.skill.capability.undeclared'], ['process.execute']);
    assert.deepEqual(hello['agent.skill.mutation.scope'], ['none']);
    assert.equal(hello['agent.skill.audit.finding.count'], 2);
    assert.equal(hello['agent.skill.audit.finding.blocking.count'], 0);
    assert.equal(bye['agent.skill.capability.declared'], undefined, 'nothing declared is not "declared none"');
    // the ruleset analyses executables only: finding none is no "exact" finding that the skill has no capability
    for (const a of [hello, bye, wave]) assert.equal(a['agent.skill.evidence.fidelity'], 'derived');
    assert.equal(bye['agent.skill.capability.inferred'], undefined, 'nothing found is not "inferred none"');
    assert.equal(bye['agent.skill.capability.undeclared'], undefined, 'nothing found is not "none undeclared"');
    assert.deepEqual(wave['agent.skill.capability.inferred'], ['process.execute']);
    assert.equal(wave['agent.skill.capability.undeclared'], undefined, 'an executable the skill declares is no undeclared-nothing claim');
    // the same record again: nothing new
    assert.deepEqual(n.inventory(record('installed', { audit })).events, []);
  });

  it('an updated record of an older installer (no change marks) still reports only hash changes', () => {
    const n = createNormalizer(fakeContext(captureLibrary()));
    const { project_root: _root, ...old } = record('updated', { skills: [{ id: `${GREETINGS}:hello-skill`, content_hash: HELLO_HASH, enabled: true }, { id: `${GREETINGS}:bye-skill`, content_hash: 'sha256:' + '5'.repeat(64), previous_hash: BYE_HASH, enabled: true }] });
    assert.deepEqual(n.inventory(old as InventoryEvent).events.map((e) => [e.attributes['agent.skill.inventory.action'], e.attributes['agent.skill.id']]), [['hash_changed', `${GREETINGS}:bye-skill`]]);
  });

  it('links an intervention only to the last activation of the same installation for the same agent', async () => {
    const logs = (await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest;
    const session = { cwd: '/$WORK/proj', repositoryResolved: true, fingerprints: {} };
    const n = createNormalizer(fakeContext(captureLibrary(), { 'cc0fce32-f629-46aa-bab4-1eeb5519e738': session }));
    const activation = n.logs(logs).events[0].attributes['agent.skill.activation.id'];
    assert.ok(activation);
    const disable = (id: string, extra: Partial<InventoryEvent>) => n.inventory(record('disabled', {
      event_id: id, skills: [{ id: `${GREETINGS}:hello-skill`, content_hash: HELLO_HASH, enabled: false }],
      intervention: { type: 'disable_skill', reason_code: 'unknown', skill_ids: [`${GREETINGS}:hello-skill`] }, ...extra,
    })).events[1].attributes;
    const elsewhere: [string, Partial<InventoryEvent>][] = [
      ['the user-scope installation', { scope: 'user', project_root: undefined }],
      ['another project', { project_root: '/$WORK/other' }],
      ['another agent of the same project', { agent: 'codex' }],
      ['a project record of an older installer (no project_root)', { project_root: undefined }],
    ];
    for (const [what, extra] of elsewhere) {
      const iv = disable(`ev-${what}`, extra);
      assert.equal(iv['agent.skill.activation.id'], undefined, `${what}: linked to the activation of another installation`);
      assert.equal(iv['agent.skill.attribution.fidelity'], undefined, what);
      assert.equal(iv['agent.user.intervention.elapsed'], undefined, what);
    }
    const iv = disable('ev-same', {});
    assert.equal(iv['agent.skill.activation.id'], activation);
    assert.ok((iv['agent.user.intervention.elapsed'] as number) > 0);
  });

  it('a disable after an activation produces inventory + intervention linked to that skill and its last activation', async () => {
    const logs = (await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest;
    const session = { cwd: '/$WORK/proj', repositoryResolved: true, fingerprints: {} };
    const n = createNormalizer(fakeContext(captureLibrary(), { 'cc0fce32-f629-46aa-bab4-1eeb5519e738': session }));
    const activation = n.logs(logs).events[0].attributes['agent.skill.activation.id'];
    const out = n.inventory(record('disabled', {
      skills: [{ id: `${GREETINGS}:hello-skill`, content_hash: HELLO_HASH, enabled: false }],
      intervention: { type: 'disable_skill', reason_code: 'overbroad_trigger', skill_ids: [`${GREETINGS}:hello-skill`] },
    }));
    assert.deepEqual(out.events.map((e) => e.event_name), ['agent.skill.inventory.changed', 'agent.user.intervention']);
    const iv = out.events[1].attributes;
    assert.equal(iv['agent.user.intervention.type'], 'disable_skill');
    assert.equal(iv['agent.skill.reason.code'], 'overbroad_trigger');
    assert.equal(iv['agent.skill.id'], `${GREETINGS}:hello-skill`);
    assert.equal(iv['agent.skill.activation.id'], activation);
    assert.equal(iv['agent.skill.attribution.fidelity'], 'inferred', 'the link to the last activation is a guess, and says so');
    assert.ok((iv['agent.user.intervention.elapsed'] as number) > 0);
    assert.deepEqual(out.metrics.map((m) => m.name), ['agent.skill.user_intervention.count']);
    const removed = n.inventory(record('removed', { event_id: 'ev-rm', skills: [{ id: `${GREETINGS}:bye-skill`, content_hash: BYE_HASH, enabled: false }], intervention: { type: 'uninstall_skill', reason_code: 'not-a-code', skill_ids: [`${GREETINGS}:bye-skill`] } }));
    assert.equal(removed.events[0].attributes['agent.skill.content.hash'], undefined);
    assert.equal(removed.events[0].attributes['agent.skill.content.previous_hash'], BYE_HASH);
    assert.equal(removed.events[1].attributes['agent.skill.reason.code'], 'unknown');
    assert.equal(removed.events[1].attributes['agent.skill.activation.id'], undefined, 'bye-skill was never activated');
    assert.equal(removed.events[1].attributes['agent.skill.attribution.fidelity'], undefined);
  });
});
