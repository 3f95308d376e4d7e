import { ATTRIBUTE_GROUPS, ATTRIBUTES, type AttributeDefinition } from '../../schemas/generated/semconv.js';
import type { NumberKind } from './otlp/value.js';

/** Type and vocabulary checks of attribute values against the generated semconv registry. Pure. */

const defs = ATTRIBUTES as unknown as Readonly<Record<string, AttributeDefinition>>;

/** The registry definition of an attribute, or undefined when it is not in the registry. */
export function attributeDefinition(key: string): AttributeDefinition | undefined {
  return defs[key];
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isInt = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v);
const isNum = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

/** Why `value` is not a valid value of attribute `key`, or undefined when it is. */
export function attributeProblem(key: string, value: unknown): string | undefined {
  const def = defs[key];
  if (!def) return `${key} is not in the semantic convention registry`;
  // enum members are treated as a closed vocabulary: normalized telemetry only uses documented values
  const allowed = def.allowedValues ?? def.members?.map((m) => m.value);
  const inVocab = (v: unknown) => !allowed || allowed.includes(v as string);
  const arrayOf = (pred: (x: unknown) => boolean) => Array.isArray(value) && value.every(pred);
  let ok: boolean;
  switch (def.type) {
    case 'string': ok = isStr(value) && inVocab(value); break;
    case 'enum': ok = (isStr(value) || isInt(value)) && inVocab(value); break;
    case 'int': ok = isInt(value); break;
    case 'double': ok = isNum(value); break;
    case 'boolean': ok = typeof value === 'boolean'; break;
    case 'string[]': ok = arrayOf((x) => isStr(x) && inVocab(x)); break;
    case 'int[]': ok = arrayOf(isInt); break;
    case 'double[]': ok = arrayOf(isNum); break;
    case 'boolean[]': ok = arrayOf((x) => typeof x === 'boolean'); break;
  }
  if (ok) return undefined;
  const vocab = allowed ? ` (one of ${allowed.join(', ')})` : '';
  return `${key} must be ${def.type}${vocab}; got ${JSON.stringify(value)}`;
}

/** How numbers of attribute `key` are encoded in OTLP (registry type; unknown keys: undefined). */
export function numberKindOf(key: string): NumberKind | undefined {
  const t = defs[key]?.type;
  if (t === 'int' || t === 'int[]') return 'int';
  if (t === 'double' || t === 'double[]') return 'double';
  return undefined;
}

const RESOURCE_GROUP = ATTRIBUTE_GROUPS['agent.skill.resource'];
/** Attributes an observation's resource may carry. */
export const RESOURCE_ATTRIBUTES: ReadonlySet<string> = new Set<string>([...RESOURCE_GROUP.required, ...RESOURCE_GROUP.recommended]);

/** An error type as OTel defines it: an identifier such as `timeout` or `java.net.UnknownHostException`, never free text (an error message can hold paths). */
export const isErrorType = (v: unknown): boolean => typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_.:$-]{0,127}$/.test(v);
