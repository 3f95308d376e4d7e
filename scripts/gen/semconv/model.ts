/**
 * The resolved form of the Weaver-format registry in schemas/semconv/: every `ref:` looked up, every
 * `extends:` merged. The renderers (render-ts.ts, render-md.ts) and the registry tests work on this.
 */

export const STABILITIES = ['stable', 'release_candidate', 'beta', 'alpha', 'development', 'deprecated'] as const;
export type Stability = (typeof STABILITIES)[number];

export const PRIMITIVE_TYPES = ['string', 'int', 'double', 'boolean', 'string[]', 'int[]', 'double[]', 'boolean[]'] as const;
export type PrimitiveType = (typeof PRIMITIVE_TYPES)[number];
/** `enum` stands for Weaver's `type: { members: [...] }`. */
export type AttributeType = PrimitiveType | 'enum';

export const REQUIREMENT_LEVELS = ['required', 'conditionally_required', 'recommended', 'opt_in'] as const;
export type RequirementLevelName = (typeof REQUIREMENT_LEVELS)[number];

export const INSTRUMENTS = ['counter', 'updowncounter', 'histogram', 'gauge'] as const;
export type Instrument = (typeof INSTRUMENTS)[number];

export const SPAN_KINDS = ['internal', 'client', 'server', 'producer', 'consumer'] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

export const EVENT_FAMILIES = ['package_management', 'runtime_observation', 'outcome_evidence'] as const;
export type EventFamily = (typeof EVENT_FAMILIES)[number];

export interface RequirementLevel {
  level: RequirementLevelName;
  /** the condition text of conditionally_required (or a note on recommended/opt_in) */
  condition?: string;
}

export interface EnumMember {
  id: string;
  value: string | number;
  brief: string;
  stability: Stability;
}

export interface AttributeDef {
  id: string;
  type: AttributeType;
  /** enum members, in declaration order (type === 'enum') */
  members?: EnumMember[];
  brief: string;
  note?: string;
  stability: Stability;
  /** default requirement level declared in the registry */
  requirementLevel: RequirementLevel;
  examples?: unknown[];
  /** 'forge' = defined in schemas/semconv/registry; 'otel' = reused from the pinned OTel release */
  origin: 'forge' | 'otel';
  /** registry group id, or `otel` for reused attributes */
  group: string;
  /** closed vocabulary of a string / string[] attribute (annotations.forge.values) */
  values?: string[];
  /** the enum attribute whose values this string / string[] attribute takes (annotations.forge.values_from) */
  valuesFrom?: string;
}

export interface AttributeUse {
  id: string;
  requirement: RequirementLevel;
  /** brief overridden at the point of use */
  brief?: string;
  note?: string;
}

export interface RegistryGroup {
  id: string;
  displayName?: string;
  brief: string;
  file: string;
  attributeIds: string[];
}

export interface UsageGroup {
  id: string;
  brief: string;
  note?: string;
  file: string;
  /** the attribute group this group extends, if any */
  extends?: string;
  /** resolved, including everything inherited through `extends` */
  attributes: AttributeUse[];
}

export interface EventDef extends UsageGroup {
  name: string;
  stability: Stability;
  family: EventFamily;
  alwaysRetain: boolean;
}

export interface MetricDef extends UsageGroup {
  name: string;
  instrument: Instrument;
  unit: string;
  stability: Stability;
}

export interface SpanDef extends UsageGroup {
  kind: SpanKind;
  /** span name pattern; `{attr}` stands for that attribute's value */
  nameTemplate: string;
  stability: Stability;
}

export interface ResolvedRegistry {
  name: string;
  description: string;
  schemaUrl: string;
  /** version segment of schemaUrl; the value of agent.skill.schema.version */
  version: string;
  stability: Stability;
  otel: { semconvVersion: string; schemaUrl: string; registryPath: string };
  /** all attributes (forge and otel), sorted by id */
  attributes: AttributeDef[];
  registryGroups: RegistryGroup[];
  /** non-registry attribute groups (envelope, resource, metric dimensions, ...), sorted by id */
  attributeGroups: UsageGroup[];
  events: EventDef[];
  metrics: MetricDef[];
  spans: SpanDef[];
}

/** Thrown with every problem found, each naming its file and group, so one run shows them all. */
export class RegistryError extends Error {
  constructor(readonly problems: string[]) {
    super(`schemas/semconv registry is invalid (${problems.length} problem(s)):\n  - ${problems.join('\n  - ')}`);
    this.name = 'RegistryError';
  }
}
