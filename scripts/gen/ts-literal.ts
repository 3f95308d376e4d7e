/**
 * Print plain data (objects, arrays, strings, numbers, booleans) as a TypeScript literal with stable,
 * readable formatting: single quotes, 2-space indent, short arrays/objects kept on one line.
 */

const MAX_INLINE = 100;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function quote(s: string): string {
  const escaped = s
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\r/g, '\\r')
    .replace(/\n/g, '\\n')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `'${escaped}'`;
}

function key(k: string): string {
  return IDENTIFIER.test(k) ? k : quote(k);
}

function inline(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    return `{ ${entries.map(([k, v]) => `${key(k)}: ${inline(v)}`).join(', ')} }`;
  }
  throw new Error(`cannot print ${typeof value} as a TypeScript literal`);
}

/** `indent` is the current indentation of the line the literal starts on. */
export function tsLiteral(value: unknown, indent = ''): string {
  const flat = inline(value);
  if (flat.length + indent.length <= MAX_INLINE || value === null || typeof value !== 'object') return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((v) => `${inner}${tsLiteral(v, inner)},\n`).join('')}${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${tsLiteral(v, inner)},\n`).join('')}${indent}}`;
}
