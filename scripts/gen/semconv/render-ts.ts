import { quote, tsLiteral } from '../ts-literal.js';
import type { AttributeDef, ResolvedRegistry } from './model.js';
import { allowedValues, assertUniqueNames, constName, METRIC_DIMENSIONS_GROUP, splitByRequirement, typeName } from './names.js';

const PREAMBLE = `export type Stability = 'stable' | 'release_candidate' | 'beta' | 'alpha' | 'development' | 'deprecated';
export type AttributeType = 'string' | 'int' | 'double' | 'boolean' | 'string[]' | 'int[]' | 'double[]' | 'boolean[]' | 'enum';
export type RequirementLevel = 'required' | 'conditionally_required' | 'recommended' | 'opt_in';
export type EventFamily = 'package_management' | 'runtime_observation' | 'outcome_evidence';

export interface EnumMemberDefinition {
  readonly id: string;
  readonly value: string | number;
  readonly brief: string;
  readonly stability: Stability;
}

export interface AttributeDefinition {
  readonly id: string;
  readonly type: AttributeType;
  readonly brief: string;
  readonly stability: Stability;
  /** 'forge' = defined in schemas/semconv; 'otel' = reused from the pinned OpenTelemetry release */
  readonly origin: 'forge' | 'otel';
  /** default requirement level in the registry */
  readonly requirementLevel: RequirementLevel;
  readonly members?: readonly EnumMemberDefinition[];
  /** closed set of values the attribute (or each element of an array attribute) takes */
  readonly allowedValues?: readonly (string | number)[];
}

export interface ConditionalRequirement {
  readonly id: AttributeName;
  readonly condition: string;
}

/** Attribute requirements of an event, span or attribute group, each list sorted by id. */
export interface AttributeRequirements {
  readonly required: readonly AttributeName[];
  readonly conditionallyRequired: readonly ConditionalRequirement[];
  readonly recommended: readonly AttributeName[];
  readonly optIn: readonly AttributeName[];
}

export interface AttributeGroupDefinition extends AttributeRequirements {
  readonly id: string;
  readonly brief: string;
}

export interface EventDefinition extends AttributeRequirements {
  /** the LogRecord EventName */
  readonly name: string;
  readonly id: string;
  readonly brief: string;
  readonly stability: Stability;
  /** telemetry contract family; families have separate consent, retention and access rules */
  readonly family: EventFamily;
  /** never sampled away; kept even when there is no runtime trace */
  readonly alwaysRetain: boolean;
}

export interface MetricDefinition {
  readonly name: string;
  readonly id: string;
  readonly instrument: 'counter' | 'updowncounter' | 'histogram' | 'gauge';
  readonly unit: string;
  readonly brief: string;
  readonly stability: Stability;
  /** the only attributes allowed on this metric's series */
  readonly dimensions: readonly AttributeName[];
}

export interface SpanDefinition extends AttributeRequirements {
  readonly id: string;
  /** span name pattern; \`{attribute}\` stands for that attribute's value */
  readonly nameTemplate: string;
  readonly kind: 'internal' | 'client' | 'server' | 'producer' | 'consumer';
  readonly brief: string;
  readonly stability: Stability;
}`;

function doc(text: string, indent = ''): string {
  return `${indent}/** ${text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ')} */`;
}

function tsValueType(def: AttributeDef): string {
  const vocab = def.members !== undefined || def.values !== undefined || def.valuesFrom !== undefined;
  switch (def.type) {
    case 'enum':
      return typeName(def.id);
    case 'string':
      return vocab ? typeName(def.id) : 'string';
    case 'string[]':
      return vocab ? `${typeName(def.id)}Element[]` : 'string[]';
    case 'int':
    case 'double':
      return 'number';
    case 'int[]':
    case 'double[]':
      return 'number[]';
    case 'boolean':
      return 'boolean';
    case 'boolean[]':
      return 'boolean[]';
  }
}

function renderVocabulary(def: AttributeDef): string[] {
  const c = constName(def.id);
  const out: string[] = [];
  if (def.type === 'enum') {
    for (const m of def.members ?? []) {
      out.push(doc(m.brief), `export const ${c}_VALUE_${constName(m.id)} = ${tsLiteral(m.value)};`);
    }
    out.push(`export const ${c}_VALUES = ${tsLiteral(def.members!.map((m) => m.value))} as const;`);
    out.push(`export type ${typeName(def.id)} = (typeof ${c}_VALUES)[number];`, '');
    return out;
  }
  const suffix = def.type === 'string[]' ? 'Element' : '';
  if (def.valuesFrom !== undefined) {
    out.push(`export const ${c}_VALUES = ${constName(def.valuesFrom)}_VALUES;`);
    out.push(`export type ${typeName(def.id)}${suffix} = ${typeName(def.valuesFrom)};`, '');
  } else if (def.values !== undefined) {
    out.push(`export const ${c}_VALUES = ${tsLiteral(def.values)} as const;`);
    out.push(`export type ${typeName(def.id)}${suffix} = (typeof ${c}_VALUES)[number];`, '');
  }
  return out;
}

/** Render schemas/generated/semconv.ts from the resolved registry. */
export function renderSemconvTs(registry: ResolvedRegistry, header: string): string {
  assertUniqueNames(registry);
  const byId = new Map(registry.attributes.map((a) => [a.id, a]));
  const lines: string[] = [header, PREAMBLE, ''];

  lines.push('// ---- Versions ----', '');
  lines.push(doc('Name of this semantic convention registry.'), `export const SEMCONV_REGISTRY_NAME = ${quote(registry.name)};`);
  lines.push(doc('Schema URL of this registry; set it as the OTLP schema_url of agent skill telemetry.'), `export const SEMCONV_SCHEMA_URL = ${quote(registry.schemaUrl)};`);
  lines.push(doc('Registry version: the value of agent.skill.schema.version.'), `export const SEMCONV_VERSION = ${quote(registry.version)};`);
  lines.push(doc('The pinned OpenTelemetry semantic-convention release of every reused attribute.'), `export const OTEL_SEMCONV_VERSION = ${quote(registry.otel.semconvVersion)};`);
  lines.push(doc('Schema URL of the pinned OpenTelemetry semantic-convention release.'), `export const OTEL_SCHEMA_URL = ${quote(registry.otel.schemaUrl)};`, '');

  lines.push('// ---- Attribute names ----', '');
  for (const a of registry.attributes) {
    const origin = a.origin === 'otel' ? `, OpenTelemetry ${registry.otel.semconvVersion}` : '';
    lines.push(doc(`${a.brief} (${a.type}, ${a.stability}${origin})`), `export const ATTR_${constName(a.id)} = ${quote(a.id)};`);
  }
  lines.push('');

  lines.push('// ---- Enum members and value vocabularies ----', '');
  for (const a of registry.attributes.filter((d) => d.type === 'enum')) lines.push(...renderVocabulary(a));
  for (const a of registry.attributes.filter((d) => d.type !== 'enum')) lines.push(...renderVocabulary(a));

  lines.push('// ---- Attribute value types ----', '');
  lines.push(doc('The TypeScript value type of every attribute, keyed by attribute name.'), 'export interface AttributeValues {');
  for (const a of registry.attributes) lines.push(`  ${quote(a.id)}: ${tsValueType(a)};`);
  lines.push('}', 'export type AttributeName = keyof AttributeValues;', 'export type AttributeSet = { [K in AttributeName]?: AttributeValues[K] };', '');

  const attributes: Record<string, unknown> = {};
  for (const a of registry.attributes) {
    attributes[a.id] = {
      id: a.id,
      type: a.type,
      brief: a.brief,
      stability: a.stability,
      origin: a.origin,
      requirementLevel: a.requirementLevel.level,
      members: a.members?.map((m) => ({ id: m.id, value: m.value, brief: m.brief, stability: m.stability })),
      allowedValues: a.type === 'enum' ? undefined : allowedValues(a, byId),
    };
  }
  lines.push(doc('Metadata of every attribute: type, stability, brief, enum members, allowed values.'));
  lines.push(`export const ATTRIBUTES = ${tsLiteral(attributes)} as const satisfies Readonly<Record<AttributeName, AttributeDefinition>>;`, '');

  lines.push('// ---- Attribute groups (event envelope, resource, metric dimensions, reused OTel attributes) ----', '');
  const groups: Record<string, unknown> = {};
  for (const g of registry.attributeGroups) groups[g.id] = { id: g.id, brief: g.brief, ...splitByRequirement(g.attributes) };
  lines.push(`export const ATTRIBUTE_GROUPS = ${tsLiteral(groups)} as const satisfies Readonly<Record<string, AttributeGroupDefinition>>;`, '');
  const dims = registry.attributeGroups.find((g) => g.id === METRIC_DIMENSIONS_GROUP);
  if (dims !== undefined) {
    lines.push(doc('The only attributes any client metric may carry as dimensions (all bounded-cardinality).'));
    lines.push(`export const METRIC_ALLOWED_DIMENSIONS = ${tsLiteral(dims.attributes.map((u) => u.id).sort())} as const satisfies readonly AttributeName[];`, '');
  }

  lines.push('// ---- Event catalog ----', '');
  const events: Record<string, unknown> = {};
  for (const e of registry.events) {
    lines.push(doc(e.brief), `export const EVENT_${constName(e.name)} = ${quote(e.name)};`);
    events[e.name] = { name: e.name, id: e.id, brief: e.brief, stability: e.stability, family: e.family, alwaysRetain: e.alwaysRetain, ...splitByRequirement(e.attributes) };
  }
  lines.push('', `export const EVENTS = ${tsLiteral(events)} as const satisfies Readonly<Record<string, EventDefinition>>;`);
  lines.push('export type EventName = keyof typeof EVENTS;', '');

  lines.push('// ---- Metrics ----', '');
  const metrics: Record<string, unknown> = {};
  for (const m of registry.metrics) {
    lines.push(doc(`${m.brief} (${m.instrument}, ${m.unit})`), `export const METRIC_${constName(m.name)} = ${quote(m.name)};`);
    metrics[m.name] = { name: m.name, id: m.id, instrument: m.instrument, unit: m.unit, brief: m.brief, stability: m.stability, dimensions: m.attributes.map((u) => u.id).sort() };
  }
  lines.push('', `export const METRICS = ${tsLiteral(metrics)} as const satisfies Readonly<Record<string, MetricDefinition>>;`);
  lines.push('export type MetricName = keyof typeof METRICS;', '');

  lines.push('// ---- Spans ----', '');
  const spans: Record<string, unknown> = {};
  for (const s of registry.spans) {
    spans[s.id] = { id: s.id, nameTemplate: s.nameTemplate, kind: s.kind, brief: s.brief, stability: s.stability, ...splitByRequirement(s.attributes) };
  }
  lines.push(`export const SPANS = ${tsLiteral(spans)} as const satisfies Readonly<Record<string, SpanDefinition>>;`);
  lines.push('export type SpanId = keyof typeof SPANS;', '');
  return lines.join('\n');
}
