import type { OtlpValue } from '../../core/telemetry/otlp/index.js';
import { ATTRIBUTES, EVENTS, type AttributeType } from '../../schemas/generated/semconv.js';
import { isIdentityAttribute } from './allowlist.js';

/**
 * What the semconv registry says an admitted value may be: its type (a scalar, or an array of
 * scalars), and for enums and closed lists the registered values. Used by admission to keep
 * content out of allowlisted keys (a kvlist or a free-form string where the registry expects a
 * count is content in disguise) and to keep registered vocabulary out of the cardinality guard.
 */

/** Catalog event names (the LogRecord EventName values the registry defines). */
export const REGISTERED_EVENT_NAMES: ReadonlySet<string> = new Set(Object.keys(EVENTS));

/** Keys the hub admits that are not registry attributes, with their type. */
const EXTRA_TYPES: Record<string, AttributeType> = {
  'telemetry.sdk.name': 'string',
  'telemetry.sdk.language': 'string',
  'telemetry.sdk.version': 'string',
  'event.name': 'string',
};

const TYPES: ReadonlyMap<string, AttributeType> = new Map<string, AttributeType>([
  ...Object.values(ATTRIBUTES).map((a) => [a.id, a.type] as [string, AttributeType]),
  ...Object.entries(EXTRA_TYPES),
]);

function vocabulary(): Map<string, ReadonlySet<string>> {
  const out = new Map<string, ReadonlySet<string>>();
  for (const a of Object.values(ATTRIBUTES) as { id: string; members?: readonly { value: string | number }[]; allowedValues?: readonly (string | number)[] }[]) {
    const values = [...(a.members ?? []).map((m) => m.value), ...(a.allowedValues ?? [])].filter((v): v is string => typeof v === 'string');
    if (values.length) out.set(a.id, new Set(values));
  }
  // the deprecated name attribute takes the catalog's event names
  out.set('event.name', REGISTERED_EVENT_NAMES);
  return out;
}

const VOCABULARY = vocabulary();

/** Attributes (or array elements) the registry gives a closed set of values (`allowedValues`, unlike an enum's open member list). */
const CLOSED: ReadonlyMap<string, ReadonlySet<string | number>> = new Map(
  (Object.values(ATTRIBUTES) as { id: string; allowedValues?: readonly (string | number)[] }[]).filter((a) => a.allowedValues).map((a) => [a.id, new Set(a.allowedValues)]),
);

/** The members of each enum attribute (string values; the registry's enums are all string enums). */
const MEMBERS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  (Object.values(ATTRIBUTES) as { id: string; type: AttributeType; members?: readonly { value: string | number }[] }[])
    .filter((a) => a.type === 'enum' && a.members)
    .map((a) => [a.id, new Set(a.members!.map((m) => String(m.value)))]),
);

const isInt = (v: OtlpValue): boolean => typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));

function scalarFits(type: string, v: OtlpValue): boolean {
  switch (type) {
    case 'string':
    case 'enum':
      return typeof v === 'string';
    case 'int':
      return isInt(v);
    case 'double':
      return typeof v === 'number' || typeof v === 'bigint';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return false;
  }
}


/**
 * Everything admission asks of one typed key, found with one lookup per attribute (admission
 * runs for every attribute of every record: separate maps cost several hash lookups each).
 */
export interface KeyFacts {
  type: AttributeType;
  /** the closed list of values (`allowedValues`), if the registry gives one */
  closed?: ReadonlySet<string | number>;
  /** registered values that bypass the cardinality guard (enum members, closed-list elements, event names) */
  vocabulary?: ReadonlySet<string>;
  /** an enum's members: a string outside them is an unknown enum value (kept: enums are open, but counted) */
  members?: ReadonlySet<string>;
  /** identity attributes are exempt from the cardinality guard */
  identity: boolean;
}

const KEY_FACTS: ReadonlyMap<string, KeyFacts> = new Map(
  [...TYPES].map(([key, type]) => {
    const facts: KeyFacts = { type, identity: isIdentityAttribute(key) };
    const closed = CLOSED.get(key);
    const vocabulary = VOCABULARY.get(key);
    if (closed) facts.closed = closed;
    if (vocabulary) facts.vocabulary = vocabulary;
    const members = MEMBERS.get(key);
    if (members) facts.members = members;
    return [key, facts];
  }),
);

/** What the registry says of `key`; undefined for a key it does not type. */
export const keyFacts = (key: string): KeyFacts | undefined => KEY_FACTS.get(key);

/** fitsRegistryType with the key's facts already looked up. */
export function fitsType(facts: KeyFacts | undefined, value: OtlpValue): boolean {
  if (facts === undefined) return true;
  const type = facts.type;
  if (type.endsWith('[]')) {
    if (!Array.isArray(value)) return false;
    const element = type.slice(0, -2);
    for (const x of value) if (!scalarFits(element, x)) return false;
    return true;
  }
  return scalarFits(type, value);
}
