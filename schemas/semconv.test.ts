import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadRegistry } from '../scripts/gen/semconv/load.js';
import { RegistryError, STABILITIES, type ResolvedRegistry } from '../scripts/gen/semconv/model.js';
import { allowedValues, METRIC_DIMENSIONS_GROUP } from '../scripts/gen/semconv/names.js';
import { readRawRegistry } from '../scripts/gen/semconv/read.js';
import { repoRoot, tempDir } from '../test-support/index.js';
import { observationEnvelopeSchema } from './generated/observation-envelope.js';
import { ATTR_AGENT_SKILL_ID, ATTRIBUTE_GROUPS, EVENTS, METRIC_ALLOWED_DIMENSIONS, SEMCONV_VERSION, SPANS } from './generated/semconv.js';

/** Enum members the spec lists verbatim; every one must exist in the registry. */
const SPEC_ENUMS: Record<string, string[]> = {
  'agent.skill.trigger.type': ['explicit', 'implicit', 'host_policy', 'skill_dependency', 'restored', 'unknown'],
  'agent.skill.phase': ['eligible', 'selected', 'load_started', 'loaded', 'load_failed', 'deactivated'],
  'agent.skill.result': ['ok', 'error', 'blocked', 'cancelled', 'unknown'],
  'agent.skill.evidence.source': ['native_otel', 'native_hook', 'plugin', 'transcript', 'filesystem', 'user_report', 'static_analysis'],
  'agent.skill.evidence.fidelity': ['exact', 'derived', 'inferred', 'unknown'],
  'agent.runtime.autonomy.mode': ['interactive', 'autonomous', 'full_access', 'unknown'],
  'agent.runtime.approval.mode': ['always', 'on_request', 'never', 'unknown'],
  'agent.runtime.sandbox.mode': ['read_only', 'workspace_write', 'unrestricted', 'unknown'],
  'agent.runtime.network.mode': ['disabled', 'restricted', 'enabled', 'unknown'],
  'agent.skill.trigger.breadth': ['explicit_only', 'narrow', 'broad', 'unbounded', 'unknown'],
  'agent.skill.authority.effect': ['none', 'narrows', 'expands', 'unknown'],
  'agent.skill.confirmation.effect': ['none', 'requires', 'suppresses', 'unknown'],
  'agent.action.type': ['filesystem.read', 'filesystem.write', 'filesystem.delete', 'process.execute', 'git.commit', 'git.push', 'network.request', 'cloud.deploy', 'database.migrate', 'message.send', 'secret.use', 'other'],
  'agent.action.scope': ['workspace', 'repository', 'remote_repository', 'external_service', 'production', 'unknown'],
  'agent.action.risk': ['none', 'low', 'medium', 'high', 'critical', 'unknown'],
  'agent.action.approval.state': ['not_required', 'requested', 'granted', 'denied', 'suppressed', 'unknown'],
  'agent.action.result': ['ok', 'error', 'blocked', 'cancelled', 'unknown'],
  'agent.skill.attribution.fidelity': ['exact', 'shared', 'inferred', 'unknown'],
  'agent.user.intervention.type': ['correction', 'scope_reduction', 'stop', 'undo', 'rollback', 'reject_diff', 'disable_skill', 'uninstall_skill', 'negative_feedback', 'report_incident'],
  'agent.skill.reason.code': [
    'false_positive', 'missed_trigger', 'overbroad_trigger',
    'authority_expansion', 'approval_suppression', 'destructive_action', 'unexpected_external_side_effect', 'production_risk',
    'scope_expansion', 'architecture_override', 'instruction_conflict', 'quality_regression', 'test_regression', 'retry_loop', 'cost_regression',
    'load_failure', 'invalid_skill', 'truncated_instructions', 'incompatible_agent', 'stale_version',
    'secret_exposure', 'private_content_export', 'untrusted_source', 'undeclared_capability',
    'obsolete', 'duplicate', 'superseded', 'unknown',
  ],
  'agent.skill.audit.finding.basis': ['declared', 'deterministically_observed', 'statically_possible', 'model_suspected', 'not_analyzed'],
};

/** Vocabularies of array attributes the spec lists ("such as" lists must be covered). */
const SPEC_VOCABULARIES: Record<string, string[]> = {
  'agent.skill.capability.declared': ['filesystem.write', 'process.execute', 'git.commit', 'git.push', 'network.request', 'cloud.deploy', 'message.send', 'secret.use'],
  'agent.skill.mutation.scope': ['none', 'working_tree', 'repository', 'remote_repository', 'external_service', 'production'],
  'agent.skill.risk.flags': ['broad_implicit_trigger', 'authority_expansion', 'approval_suppression', 'production_mutation', 'credential_reuse', 'destructive_action', 'scope_expansion', 'architecture_override', 'private_content_access', 'external_communication'],
};

/** Every EventName in the spec: the event catalog table plus the Git AI bridge events of section 5A. */
const SPEC_EVENTS = [
  'agent.skill.inventory.changed', 'agent.skill.audit.completed', 'agent.skill.eligible', 'agent.skill.selected',
  'agent.skill.load_started', 'agent.skill.loaded', 'agent.skill.load_failed', 'agent.skill.conflict.detected',
  'agent.skill.policy.decision', 'agent.action.completed', 'agent.change.summary', 'agent.user.intervention',
  'agent.skill.feedback', 'agent.skill.incident.reported', 'agent.skill.quarantine.changed',
  'git.ai.checkpoint.created', 'git.ai.attribution.updated', 'git.ai.attribution.survived',
  'git.ai.lines.accepted', 'git.ai.lines.overridden', 'git.ai.session.abandoned', 'git.ai.commit.attributed',
];

const SPEC_METRICS: [string, string, string][] = [
  ['agent.skill.activation.count', 'counter', '{activation}'],
  ['agent.skill.activation.duration', 'histogram', 's'],
  ['agent.skill.load.failure.count', 'counter', '{failure}'],
  ['agent.skill.user_intervention.count', 'counter', '{intervention}'],
  ['agent.skill.telemetry.dropped.count', 'counter', '{event}'],
];

/** The spec's allowed dimensions: host agent, adapter, source type, trigger type, result, evidence source, fidelity. */
const SPEC_DIMENSIONS = ['agent.adapter.name', 'agent.host.name', 'agent.skill.evidence.fidelity', 'agent.skill.evidence.source', 'agent.skill.result', 'agent.skill.source.type', 'agent.skill.trigger.type'];

/** Identity attributes that must never label a metric series (skill, package, release, repository, session, activation). */
const IDENTITY = /^(artifact|session|vcs|forge|git\.ai)\.|^gen_ai\.(conversation|agent\.id)|^agent\.turn\.|\.(id|ids|hash|previous_hash|key|sha|original_sha|ref|fingerprint)$|^agent\.skill\.(name|package\.|content\.|activation\.)/;

describe('semantic convention registry (schemas/semconv)', () => {
  let registry: ResolvedRegistry;
  const attr = (id: string) => registry.attributes.find((a) => a.id === id);
  before(async () => {
    registry = await loadRegistry(repoRoot);
  });

  it('has unique group ids, attribute ids, event names and metric names in the raw YAML', async () => {
    const raw = await readRawRegistry(repoRoot);
    const groups = raw.files.flatMap((f) => f.groups);
    const dupes = (xs: unknown[]) => xs.filter((x, i) => xs.indexOf(x) !== i);
    assert.deepEqual(dupes(groups.map((g) => g.id)), []);
    const defs = groups.flatMap((g) => (Array.isArray(g.attributes) ? (g.attributes as Record<string, unknown>[]) : [])).filter((a) => a.id !== undefined).map((a) => a.id);
    assert.ok(defs.length > 100);
    assert.deepEqual(dupes(defs), []);
    assert.deepEqual(dupes(groups.filter((g) => g.type === 'event').map((g) => g.name)), []);
    assert.deepEqual(dupes(groups.filter((g) => g.type === 'metric').map((g) => g.metric_name)), []);
  });

  it('covers every attribute namespace the spec names', () => {
    for (const ns of ['agent.skill.', 'agent.action.', 'agent.host.', 'agent.adapter.', 'agent.runtime.', 'agent.turn.', 'git.ai.', 'forge.']) {
      assert.ok(registry.attributes.some((a) => a.origin === 'forge' && a.id.startsWith(ns)), `no ${ns}* attribute`);
    }
  });

  it('lists every enum member the spec lists, and every enum has unique members', () => {
    for (const [id, members] of Object.entries(SPEC_ENUMS)) {
      const values = attr(id)?.members?.map((m) => m.value);
      assert.ok(values !== undefined, `${id} is missing or not an enum`);
      for (const m of members) assert.ok(values.includes(m), `${id} lacks ${m}`);
    }
    for (const a of registry.attributes.filter((d) => d.type === 'enum')) {
      assert.ok(a.members!.length > 0, `${a.id} has no members`);
      assert.equal(new Set(a.members!.map((m) => m.value)).size, a.members!.length, `${a.id} repeats a value`);
      assert.equal(new Set(a.members!.map((m) => m.id)).size, a.members!.length, `${a.id} repeats a member id`);
    }
    const byId = new Map(registry.attributes.map((a) => [a.id, a]));
    for (const [id, values] of Object.entries(SPEC_VOCABULARIES)) {
      const allowed = allowedValues(byId.get(id)!, byId);
      for (const v of values) assert.ok(allowed?.includes(v), `${id} vocabulary lacks ${v}`);
    }
  });

  it('uses valid stability values everywhere', () => {
    const ok = (s: string, where: string) => assert.ok((STABILITIES as readonly string[]).includes(s), `${where}: ${s}`);
    for (const a of registry.attributes) {
      ok(a.stability, a.id);
      for (const m of a.members ?? []) ok(m.stability, `${a.id}=${m.value}`);
    }
    for (const g of [...registry.events, ...registry.metrics, ...registry.spans]) ok(g.stability, g.id);
    ok(registry.stability, 'manifest');
  });

  it('defines every EventName of the spec, and every event attribute exists in the registry', () => {
    assert.deepEqual(registry.events.map((e) => e.name).sort(), [...SPEC_EVENTS].sort());
    for (const e of [...registry.events, ...registry.spans, ...registry.metrics, ...registry.attributeGroups]) {
      for (const u of e.attributes) assert.ok(attr(u.id) !== undefined, `${e.id} uses unknown ${u.id}`);
    }
    for (const e of Object.values(EVENTS)) {
      for (const id of ['agent.skill.schema.version', 'agent.skill.event.id', 'agent.skill.evidence.source', 'agent.skill.evidence.fidelity']) {
        assert.ok((e.required as readonly string[]).includes(id), `${e.name} does not require ${id}`);
      }
    }
  });

  it('defines the five client metrics with the spec instrument and unit', () => {
    assert.deepEqual(registry.metrics.map((m) => [m.name, m.instrument, m.unit]).sort(), [...SPEC_METRICS].sort());
  });

  it('allows exactly the spec dimensions on metrics, and never an identity attribute', () => {
    assert.deepEqual([...METRIC_ALLOWED_DIMENSIONS].sort(), SPEC_DIMENSIONS);
    const allowed = new Set(registry.attributeGroups.find((g) => g.id === METRIC_DIMENSIONS_GROUP)!.attributes.map((u) => u.id));
    for (const id of allowed) {
      assert.ok(!IDENTITY.test(id), `${id} is an identity attribute`);
      const def = attr(id)!;
      assert.ok(def.type === 'enum' || id === 'agent.adapter.name', `${id} is not a bounded enum`);
    }
    for (const m of registry.metrics) {
      for (const u of m.attributes) {
        assert.ok(allowed.has(u.id), `${m.name} uses ${u.id}, which is not an allowed dimension`);
        assert.ok(!IDENTITY.test(u.id), `${m.name} carries identity attribute ${u.id}`);
      }
    }
  });

  it('reuses OTel attributes by reference, pinned to one semconv release', () => {
    for (const id of ['session.id', 'gen_ai.conversation.id', 'gen_ai.agent.id', 'gen_ai.request.model', 'artifact.version', 'artifact.hash', 'artifact.purl', 'vcs.ref.head.revision', 'error.type']) {
      assert.equal(attr(id)?.origin, 'otel', id);
    }
    assert.match(registry.otel.schemaUrl, /^https:\/\/opentelemetry\.io\/schemas\/\d+\.\d+\.\d+$/);
    assert.ok(registry.otel.schemaUrl.endsWith(`/${registry.otel.semconvVersion}`));
    assert.ok(registry.attributes.filter((a) => a.origin === 'forge').every((a) => !/^(session|gen_ai|artifact|vcs|error|service)\./.test(a.id)), 'an OTel namespace is redefined');
  });

  it('keeps raw repository remotes opt-in wherever the registry lists them (they stay local by default)', () => {
    const lists = [...Object.values(ATTRIBUTE_GROUPS), ...Object.values(EVENTS), ...Object.values(SPANS)] as { id: string; required: readonly string[]; recommended: readonly string[]; optIn: readonly string[]; conditionallyRequired: readonly { id: string }[] }[];
    const listed = lists.filter((g) => [...g.required, ...g.recommended, ...g.optIn, ...g.conditionallyRequired.map((c) => c.id)].includes('vcs.repository.url.full'));
    assert.ok(listed.length > 0);
    for (const g of listed) assert.ok(g.optIn.includes('vcs.repository.url.full'), `${g.id} does not list vcs.repository.url.full as opt-in`);
  });

  it('never uses an attribute name as the namespace of another attribute', () => {
    const ids = new Set(registry.attributes.map((a) => a.id));
    for (const id of ids) for (const other of ids) assert.ok(!other.startsWith(`${id}.`), `${id} is also a namespace (${other})`);
  });

  it('names the activation span activate_skill <skill-name>', () => {
    assert.equal(SPANS['span.agent.skill.activation'].nameTemplate, 'activate_skill {agent.skill.name}');
    assert.equal(ATTR_AGENT_SKILL_ID, 'agent.skill.id');
  });

  it('rejects a registry with a duplicate attribute, an unknown ref or a missing enum member list', async () => {
    const dir = await tempDir('sf-semconv-');
    try {
      await cp(join(repoRoot, 'schemas/semconv'), join(dir.path, 'schemas/semconv'), { recursive: true });
      await cp(join(repoRoot, 'schemas/semconv-pins.yaml'), join(dir.path, 'schemas/semconv-pins.yaml'));
      const extra = 'groups:\n  - id: registry.extra\n    type: attribute_group\n    brief: x\n    attributes:\n'
        + '      - {id: agent.skill.id, type: string, brief: again, stability: development, examples: [a]}\n'
        + '      - {id: agent.skill.empty, type: {members: []}, brief: none, stability: development}\n'
        + '  - id: extra.use\n    type: attribute_group\n    brief: y\n    attributes:\n      - ref: agent.skill.nope\n';
      await writeFile(join(dir.path, 'schemas/semconv/registry/extra.yaml'), extra);
      await assert.rejects(loadRegistry(dir.path), (e: unknown) => {
        assert.ok(e instanceof RegistryError);
        const text = e.problems.join('\n');
        assert.match(text, /agent\.skill\.id is defined twice/);
        assert.match(text, /agent\.skill\.empty: an enum type needs a non-empty `members` list/);
        assert.match(text, /ref agent\.skill\.nope is neither defined/);
        return true;
      });
    } finally {
      await dir.cleanup();
    }
  });

  describe('observation envelope JSON Schema', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const validate = ajv.compile(observationEnvelopeSchema);
    const event = () => ({
      event_name: 'agent.skill.loaded',
      timestamp: '2026-08-09T18:42:10.123Z',
      observed_timestamp: '2026-08-09T18:42:10.141Z',
      trace_id: '4fd0b6131f19f39af59518d127b0cafe',
      span_id: '18b2a0f1c3d4e5f6',
      severity_text: 'INFO',
      resource: { 'service.name': 'claude-code', 'service.version': '1.2.3', 'agent.adapter.name': 'sf-claude-adapter' },
      attributes: {
        'agent.skill.schema.version': SEMCONV_VERSION,
        'agent.skill.event.id': '01K2F7Q9ZK3M4N5P6Q7R8S9T0V',
        'agent.skill.id': 'owner/code-quality:maintainability',
        'agent.skill.instructions.file_count': 3,
        'agent.skill.instructions.truncated': false,
        'agent.skill.evidence.source': 'native_otel',
        'agent.skill.evidence.fidelity': 'exact',
      } as Record<string, unknown>,
    });

    it('accepts the spec example of a normalized agent.skill.loaded event', () => {
      assert.ok(validate(event()), JSON.stringify(validate.errors));
    });

    it('rejects missing evidence fidelity, an all-zero trace id and a null attribute', () => {
      const noFidelity = event();
      delete noFidelity.attributes['agent.skill.evidence.fidelity'];
      assert.equal(validate(noFidelity), false);
      assert.equal(validate({ ...event(), trace_id: '0'.repeat(32) }), false);
      const withNull = event();
      withNull.attributes['agent.skill.result'] = null;
      assert.equal(validate(withNull), false);
    });

    it('agrees with the registry on the envelope enums and required attributes', async () => {
      const schema = JSON.parse(await readFile(join(repoRoot, 'schemas/json/observation-envelope.schema.json'), 'utf8'));
      const props = schema.properties.attributes.properties;
      for (const id of ['agent.skill.evidence.source', 'agent.skill.evidence.fidelity']) {
        assert.deepEqual(props[id].enum, attr(id)!.members!.map((m) => m.value), id);
      }
      assert.deepEqual([...schema.properties.attributes.required].sort(), [...ATTRIBUTE_GROUPS['agent.skill.envelope'].required].sort());
    });
  });
});
