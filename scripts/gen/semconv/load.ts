import {
  EVENT_FAMILIES,
  INSTRUMENTS,
  RegistryError,
  SPAN_KINDS,
  type AttributeDef,
  type AttributeUse,
  type EventDef,
  type EventFamily,
  type Instrument,
  type MetricDef,
  type RegistryGroup,
  type ResolvedRegistry,
  type SpanDef,
  type SpanKind,
  type UsageGroup,
} from './model.js';
import { Problems, parseAttributeDef, parsePinnedAttribute, parseRequirementLevel } from './parse-attribute.js';
import { MANIFEST_FILE, PINS_FILE, isObject, readRawRegistry, type RawObject } from './read.js';

const GROUP_TYPES = ['attribute_group', 'event', 'metric', 'span'];
/** OTel schema URL format: http[s]://server[:port]/path/<version> */
const SCHEMA_URL = /^https?:\/\/[^/]+\/.*?([0-9]+\.[0-9]+\.[0-9]+)$/;

interface Pending {
  raw: RawObject;
  file: string;
  where: string;
}

function forgeAnnotations(raw: RawObject): RawObject {
  return isObject(raw.annotations) && isObject(raw.annotations.forge) ? raw.annotations.forge : {};
}

function parseManifest(m: RawObject, p: Problems) {
  const where = MANIFEST_FILE;
  const schemaUrl = p.str(m, 'schema_url', where);
  const version = SCHEMA_URL.exec(schemaUrl)?.[1] ?? '';
  if (schemaUrl !== '' && version === '') p.add(where, 'schema_url must end in a semantic version segment');
  const deps = Array.isArray(m.dependencies) ? m.dependencies.filter(isObject) : [];
  if (deps.length !== 1) p.add(where, 'exactly one dependency (the pinned OpenTelemetry semantic conventions) is expected');
  const dep = deps[0] ?? {};
  const otelSchemaUrl = p.str(dep, 'schema_url', `${where} dependencies[0]`);
  const otelVersion = SCHEMA_URL.exec(otelSchemaUrl)?.[1] ?? '';
  if (otelSchemaUrl !== '' && otelVersion === '') p.add(where, 'the dependency schema_url must end in a semantic version segment');
  return {
    name: p.str(m, 'name', where),
    description: p.str(m, 'description', where),
    schemaUrl,
    version,
    stability: p.stability(m, where),
    otel: { semconvVersion: otelVersion, schemaUrl: otelSchemaUrl, registryPath: p.str(dep, 'registry_path', `${where} dependencies[0]`) },
  };
}

/** Resolve the refs of one non-registry group, following `extends` (parent first, child overrides). */
function resolveUses(
  id: string,
  pending: Map<string, Pending>,
  attributes: Map<string, AttributeDef>,
  used: Set<string>,
  p: Problems,
  stack: string[] = [],
): AttributeUse[] {
  const g = pending.get(id)!;
  if (stack.includes(id)) {
    p.add(g.where, `extends cycle: ${[...stack, id].join(' -> ')}`);
    return [];
  }
  let uses: AttributeUse[] = [];
  if (g.raw.extends !== undefined) {
    const parent = typeof g.raw.extends === 'string' ? pending.get(g.raw.extends) : undefined;
    if (parent === undefined || parent.raw.type !== 'attribute_group') {
      p.add(g.where, `extends ${JSON.stringify(g.raw.extends)} is not a non-registry attribute_group`);
    } else {
      uses = resolveUses(g.raw.extends as string, pending, attributes, used, p, [...stack, id]);
    }
  }
  const own = new Set<string>();
  const list = Array.isArray(g.raw.attributes) ? g.raw.attributes : [];
  for (const [i, a] of list.entries()) {
    const at = `${g.where} attributes[${i}]`;
    if (!isObject(a) || typeof a.ref !== 'string') {
      p.add(at, 'non-registry groups may only reference attributes (`ref:`); define attributes in a registry.* group');
      continue;
    }
    if (!attributes.has(a.ref)) p.add(at, `ref ${a.ref} is neither defined in a registry group nor pinned in ${PINS_FILE}`);
    if (own.has(a.ref)) p.add(at, `${a.ref} is referenced twice`);
    own.add(a.ref);
    used.add(a.ref);
    const use: AttributeUse = { id: a.ref, requirement: parseRequirementLevel(a.requirement_level, `${at} ${a.ref}`, p) };
    if (typeof a.brief === 'string') use.brief = a.brief.trim();
    if (typeof a.note === 'string') use.note = a.note.trim();
    uses = uses.filter((u) => u.id !== a.ref).concat(use);
  }
  return uses;
}

/**
 * Load schemas/semconv (Weaver format) plus schemas/semconv-pins.yaml and resolve it. Throws a
 * RegistryError listing every problem (file, group, what is wrong) when the registry is malformed.
 */
export async function loadRegistry(root: string): Promise<ResolvedRegistry> {
  const raw = await readRawRegistry(root);
  const p = new Problems();
  const manifest = parseManifest(raw.manifest, p);

  // Reused OTel attributes: the pins must describe the same release the manifest depends on.
  const attributes = new Map<string, AttributeDef>();
  if (raw.pins.schema_url !== manifest.otel.schemaUrl) {
    p.add(PINS_FILE, `schema_url ${JSON.stringify(raw.pins.schema_url)} differs from the manifest dependency ${manifest.otel.schemaUrl}`);
  }
  if (String(raw.pins.semconv_version) !== manifest.otel.semconvVersion) {
    p.add(PINS_FILE, `semconv_version ${JSON.stringify(raw.pins.semconv_version)} differs from the manifest dependency's version ${manifest.otel.semconvVersion}`);
  }
  const pinList = Array.isArray(raw.pins.attributes) ? raw.pins.attributes.filter(isObject) : [];
  for (const [i, a] of pinList.entries()) {
    const def = parsePinnedAttribute(a, `${PINS_FILE} attributes[${i}]`, p);
    if (attributes.has(def.id)) p.add(PINS_FILE, `attribute ${def.id} is pinned twice`);
    attributes.set(def.id, def);
  }

  const pending = new Map<string, Pending>();
  const registryGroups: RegistryGroup[] = [];
  for (const { file, groups } of raw.files) {
    for (const g of groups) {
      const id = p.str(g, 'id', file);
      const where = `${file} group ${id}`;
      if (pending.has(id)) p.add(where, `duplicate group id (also in ${pending.get(id)!.file})`);
      pending.set(id, { raw: g, file, where });
      if (!GROUP_TYPES.includes(g.type as string)) p.add(where, `type must be one of ${GROUP_TYPES.join(', ')}`);
      p.str(g, 'brief', where);
      if (!(g.type === 'attribute_group' && id.startsWith('registry.'))) continue;
      const ids: string[] = [];
      for (const [i, a] of (Array.isArray(g.attributes) ? g.attributes : []).entries()) {
        if (!isObject(a) || a.ref !== undefined) {
          p.add(`${where} attributes[${i}]`, 'registry groups define attributes with `id:`; `ref:` belongs in other groups');
          continue;
        }
        const def = parseAttributeDef(a, id, where, p);
        const prior = attributes.get(def.id);
        if (prior !== undefined) p.add(where, `attribute ${def.id} is defined twice (also in ${prior.group})`);
        attributes.set(def.id, def);
        ids.push(def.id);
      }
      registryGroups.push({ id, displayName: typeof g.display_name === 'string' ? g.display_name : undefined, brief: String(g.brief ?? '').trim(), file, attributeIds: ids });
    }
  }

  for (const def of attributes.values()) {
    if (def.valuesFrom === undefined) continue;
    if (attributes.get(def.valuesFrom)?.type !== 'enum') p.add(`attribute ${def.id}`, `annotations.forge.values_from ${def.valuesFrom} is not an enum attribute`);
  }

  const used = new Set<string>();
  const attributeGroups: UsageGroup[] = [];
  const events: EventDef[] = [];
  const metrics: MetricDef[] = [];
  const spans: SpanDef[] = [];
  const eventNames = new Set<string>();
  const metricNames = new Set<string>();
  for (const [id, g] of pending) {
    if (g.raw.type === 'attribute_group' && id.startsWith('registry.')) continue;
    const base: UsageGroup = {
      id,
      brief: String(g.raw.brief ?? '').trim(),
      note: typeof g.raw.note === 'string' ? g.raw.note.trim() : undefined,
      file: g.file,
      extends: typeof g.raw.extends === 'string' ? g.raw.extends : undefined,
      attributes: resolveUses(id, pending, attributes, used, p),
    };
    const forge = forgeAnnotations(g.raw);
    if (g.raw.type === 'attribute_group') {
      attributeGroups.push(base);
    } else if (g.raw.type === 'event') {
      const name = p.str(g.raw, 'name', g.where);
      if (eventNames.has(name)) p.add(g.where, `duplicate event name ${name}`);
      eventNames.add(name);
      if (!(EVENT_FAMILIES as readonly string[]).includes(forge.family as string)) p.add(g.where, `annotations.forge.family must be one of ${EVENT_FAMILIES.join(', ')}`);
      if (typeof forge.always_retain !== 'boolean') p.add(g.where, 'annotations.forge.always_retain must be true or false');
      events.push({ ...base, name, stability: p.stability(g.raw, g.where), family: forge.family as EventFamily, alwaysRetain: forge.always_retain === true });
    } else if (g.raw.type === 'metric') {
      const name = p.str(g.raw, 'metric_name', g.where);
      if (metricNames.has(name)) p.add(g.where, `duplicate metric name ${name}`);
      metricNames.add(name);
      if (!(INSTRUMENTS as readonly string[]).includes(g.raw.instrument as string)) p.add(g.where, `instrument must be one of ${INSTRUMENTS.join(', ')}`);
      metrics.push({ ...base, name, instrument: g.raw.instrument as Instrument, unit: p.str(g.raw, 'unit', g.where), stability: p.stability(g.raw, g.where) });
    } else if (g.raw.type === 'span') {
      if (!(SPAN_KINDS as readonly string[]).includes(g.raw.span_kind as string)) p.add(g.where, `span_kind must be one of ${SPAN_KINDS.join(', ')}`);
      const nameTemplate = p.str(forge, 'span_name', `${g.where} annotations.forge`);
      spans.push({ ...base, kind: g.raw.span_kind as SpanKind, nameTemplate, stability: p.stability(g.raw, g.where) });
    }
  }

  for (const def of attributes.values()) {
    if (def.origin === 'otel' && !used.has(def.id)) p.add(PINS_FILE, `${def.id} is pinned but nothing references it; remove the pin or reference it`);
  }
  if (p.list.length > 0) throw new RegistryError(p.list);

  const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return {
    ...manifest,
    attributes: [...attributes.values()].sort(byId),
    registryGroups: registryGroups.sort(byId),
    attributeGroups: attributeGroups.sort(byId),
    events: events.sort(byName),
    metrics: metrics.sort(byName),
    spans: spans.sort(byId),
  };
}
