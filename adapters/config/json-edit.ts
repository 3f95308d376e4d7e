import type { Node, ParseError } from 'jsonc-parser';
import { jsoncLib } from './jsonc-lib.js';
import { SfError } from '../../core/errors/index.js';
import { lineColumn } from '../../core/text/line-column.js';

export type JsonPath = string[];
export type JsonObject = Record<string, unknown>;

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Host settings are a few levels deep; a document nested deeper is refused before any recursive parsing. */
export const MAX_JSON_DEPTH = 200;

/** Sets an own property, also for keys such as "__proto__" that plain assignment would treat as the prototype. */
function setOwn(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The deepest nesting of objects and arrays in a JSON/JSONC text (strings and comments skipped). */
function nestingDepth(text: string): { depth: number; offset: number } {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === '{' || c === '[') {
      if (++depth > MAX_JSON_DEPTH) return { depth, offset: i };
    } else if (c === '}' || c === ']') {
      depth--;
    }
  }
  return { depth, offset: -1 };
}

/** The value of a parse tree node, with every key an own property (no prototype surprises). */
function valueOf(node: Node): unknown {
  if (node.type === 'object') {
    const obj: JsonObject = {};
    for (const prop of node.children ?? []) {
      const [key, value] = prop.children ?? [];
      if (key && value) setOwn(obj, String(key.value), valueOf(value));
    }
    return obj;
  }
  if (node.type === 'array') return (node.children ?? []).map(valueOf);
  return node.value;
}

/** jsonc-parser's ParseErrorCode values (a const enum, not importable at run time) as words for the user. */
const PARSE_ERRORS: Record<number, string> = {
  1: 'an invalid symbol', 2: 'an invalid number', 3: 'expected a property name (in double quotes)', 4: 'expected a value',
  5: 'expected a colon', 6: 'expected a comma', 7: 'expected a closing brace "}"', 8: 'expected a closing bracket "]"',
  9: 'expected the end of the file (something follows the top-level value)', 10: 'an invalid comment', 11: 'a comment that is not closed',
  12: 'a string that is not closed', 13: 'a number cut short', 14: 'an invalid unicode escape', 15: 'an invalid escape character',
  16: 'an invalid character (a control character in a string?)',
};

export const parseErrorWords = (code: number): string => PARSE_ERRORS[code] ?? 'not valid JSON';

/**
 * Parses a JSON/JSONC config. Empty or whitespace-only text is an empty object. Anything that does
 * not parse, or whose root is not an object, is SF_E_CONFIG with the line and column, so the caller
 * refuses to edit it and leaves the file untouched.
 */
export function parseJsonConfig(text: string, file: string): JsonObject {
  if (text.trim() === '') return {};
  const deep = nestingDepth(text);
  if (deep.offset >= 0) {
    const { line, column } = lineColumn(text, deep.offset);
    throw new SfError('SF_E_CONFIG', `${file}:${line}:${column}: nested more than ${MAX_JSON_DEPTH} levels deep; Forge will not edit it`, {
      location: { file, line, column },
      hint: 'A host settings file is a few levels deep; fix the file (or move it away) and run the command again. The file was not changed.',
    });
  }
  const errors: ParseError[] = [];
  const { parseTree } = jsoncLib();
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const value: unknown = tree ? valueOf(tree) : undefined;
  if (errors.length > 0) {
    const first = errors[0];
    const { line, column } = lineColumn(text, first.offset);
    throw new SfError('SF_E_CONFIG', `${file}:${line}:${column}: ${parseErrorWords(first.error)}; Forge will not edit a config file it cannot parse`, {
      location: { file, line, column },
      hint: 'Fix the syntax error (or move the file away) and run the command again; the file was not changed.',
    });
  }
  if (!isJsonObject(value)) {
    throw new SfError('SF_E_CONFIG', `${file}: the top level is not a JSON object`, {
      location: { file, line: 1, column: 1 },
      hint: 'A host settings file must contain one JSON object, e.g. {}; the file was not changed.',
    });
  }
  return value;
}

/** The value at `path`, or undefined. */
export function getPath(root: unknown, path: JsonPath): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (!isJsonObject(cur) || !Object.hasOwn(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/** A structural copy of `root` with `path` set to `value` (undefined deletes); missing parents are created. */
export function withPath(root: JsonObject, path: JsonPath, value: unknown): JsonObject {
  const copy = structuredClone(root);
  let cur: JsonObject = copy;
  for (const key of path.slice(0, -1)) {
    if (!Object.hasOwn(cur, key) || !isJsonObject(cur[key])) setOwn(cur, key, {});
    cur = cur[key] as JsonObject;
  }
  const last = path[path.length - 1];
  if (value === undefined) delete cur[last];
  else setOwn(cur, last, structuredClone(value));
  return copy;
}
