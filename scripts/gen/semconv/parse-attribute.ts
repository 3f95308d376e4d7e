import {
  PRIMITIVE_TYPES,
  REQUIREMENT_LEVELS,
  STABILITIES,
  type AttributeDef,
  type AttributeType,
  type EnumMember,
  type PrimitiveType,
  type RequirementLevel,
  type Stability,
} from './model.js';
import { isObject, type RawObject } from './read.js';

/** Collects problems instead of throwing, so one run reports every mistake in the registry. */
export class Problems {
  readonly list: string[] = [];
  add(where: string, message: string): void {
    this.list.push(`${where}: ${message}`);
  }
  /** A required non-empty string field. */
  str(obj: RawObject, key: string, where: string): string {
    const v = obj[key];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
    this.add(where, `\`${key}\` must be a non-empty string`);
    return '';
  }
  optStr(obj: RawObject, key: string, where: string): string | undefined {
    if (obj[key] === undefined) return undefined;
    return this.str(obj, key, where);
  }
  stability(obj: RawObject, where: string): Stability {
    const v = obj.stability;
    if (typeof v === 'string' && (STABILITIES as readonly string[]).includes(v)) return v as Stability;
    this.add(where, `\`stability\` must be one of ${STABILITIES.join(', ')} (got ${JSON.stringify(v)})`);
    return 'development';
  }
}

/** Parse Weaver's requirement_level: a bare level, or `{conditionally_required: "<condition>"}`. */
export function parseRequirementLevel(raw: unknown, where: string, p: Problems): RequirementLevel {
  if (raw === undefined) return { level: 'recommended' };
  if (typeof raw === 'string' && raw !== 'conditionally_required' && (REQUIREMENT_LEVELS as readonly string[]).includes(raw)) {
    return { level: raw as RequirementLevel['level'] };
  }
  if (isObject(raw)) {
    const keys = Object.keys(raw);
    const key = keys[0];
    const text = key === undefined ? undefined : raw[key];
    if (keys.length === 1 && (REQUIREMENT_LEVELS as readonly string[]).includes(key!) && typeof text === 'string' && text.trim() !== '') {
      return { level: key as RequirementLevel['level'], condition: text.trim() };
    }
  }
  p.add(where, `requirement_level must be required, recommended, opt_in or {conditionally_required: "<condition>"} (got ${JSON.stringify(raw)})`);
  return { level: 'recommended' };
}

function parseMembers(raw: unknown, where: string, p: Problems): EnumMember[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    p.add(where, 'an enum type needs a non-empty `members` list');
    return [];
  }
  const members: EnumMember[] = [];
  const ids = new Set<string>();
  const values = new Set<string | number>();
  for (const [i, m] of raw.entries()) {
    const at = `${where} member[${i}]`;
    if (!isObject(m)) {
      p.add(at, 'must be a mapping with id, value, brief, stability');
      continue;
    }
    const id = p.str(m, 'id', at);
    const value = m.value;
    if (typeof value !== 'string' && !Number.isInteger(value)) p.add(at, '`value` must be a string or an integer');
    if (ids.has(id)) p.add(at, `duplicate member id ${id}`);
    if (values.has(value as string | number)) p.add(at, `duplicate member value ${JSON.stringify(value)}`);
    ids.add(id);
    values.add(value as string | number);
    members.push({ id, value: value as string | number, brief: p.str(m, 'brief', at), stability: p.stability(m, at) });
  }
  if (new Set(members.map((m) => typeof m.value)).size > 1) p.add(where, 'enum member values must all be strings or all integers');
  return members;
}

/** Parse one attribute definition of a `registry.*` attribute_group. */
export function parseAttributeDef(raw: RawObject, group: string, where: string, p: Problems): AttributeDef {
  const id = p.str(raw, 'id', where);
  const at = `${where} attribute ${id}`;
  let type: AttributeType = 'string';
  let members: EnumMember[] | undefined;
  if (typeof raw.type === 'string' && (PRIMITIVE_TYPES as readonly string[]).includes(raw.type)) {
    type = raw.type as PrimitiveType;
  } else if (isObject(raw.type)) {
    type = 'enum';
    members = parseMembers(raw.type.members, at, p);
  } else {
    p.add(at, `\`type\` must be one of ${PRIMITIVE_TYPES.join(', ')} or {members: [...]} (got ${JSON.stringify(raw.type)})`);
  }
  const def: AttributeDef = {
    id,
    type,
    members,
    brief: p.str(raw, 'brief', at),
    note: p.optStr(raw, 'note', at),
    stability: p.stability(raw, at),
    requirementLevel: parseRequirementLevel(raw.requirement_level, at, p),
    examples: raw.examples === undefined ? undefined : Array.isArray(raw.examples) ? raw.examples : [raw.examples],
    origin: 'forge',
    group,
  };
  if (type !== 'enum' && type !== 'boolean' && def.examples === undefined) p.add(at, 'non-enum attributes need `examples`');
  const forge = isObject(raw.annotations) && isObject(raw.annotations.forge) ? raw.annotations.forge : undefined;
  if (forge !== undefined) {
    if (type !== 'string' && type !== 'string[]') p.add(at, 'annotations.forge vocabularies apply to string and string[] attributes only');
    if (forge.values !== undefined) {
      if (Array.isArray(forge.values) && forge.values.length > 0 && forge.values.every((v) => typeof v === 'string')) def.values = forge.values as string[];
      else p.add(at, 'annotations.forge.values must be a non-empty list of strings');
    }
    if (forge.values_from !== undefined) def.valuesFrom = p.str(forge, 'values_from', `${at} annotations.forge`);
  }
  return def;
}

/** Parse a referenced OTel attribute from schemas/semconv-pins.yaml. */
export function parsePinnedAttribute(raw: RawObject, where: string, p: Problems): AttributeDef {
  const id = p.str(raw, 'id', where);
  const at = `${where} attribute ${id}`;
  const type = raw.type;
  if (typeof type !== 'string' || !(PRIMITIVE_TYPES as readonly string[]).includes(type)) {
    p.add(at, `\`type\` must be one of ${PRIMITIVE_TYPES.join(', ')}`);
  }
  return {
    id,
    type: (PRIMITIVE_TYPES as readonly string[]).includes(type as string) ? (type as PrimitiveType) : 'string',
    brief: p.str(raw, 'brief', at),
    stability: p.stability(raw, at),
    requirementLevel: { level: 'recommended' },
    examples: Array.isArray(raw.examples) ? raw.examples : undefined,
    origin: 'otel',
    group: 'otel',
  };
}
