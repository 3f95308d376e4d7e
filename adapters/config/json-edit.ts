import { isDeepStrictEqual } from 'node:util';
import type { ParseError } from 'jsonc-parser';
import { jsoncLib } from './jsonc-lib.js';
import { SfError } from '../../core/errors/index.js';
import { detectIndent, lineColumn } from './text-shape.js';

export type JsonPath = string[];
export type JsonObject = Record<string, unknown>;

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses a JSON/JSONC config. Empty or whitespace-only text is an empty object. Anything that does
 * not parse, or whose root is not an object, is SF_E_CONFIG with the line and column, so the caller
 * refuses to edit it and leaves the file untouched.
 */
export function parseJsonConfig(text: string, file: string): JsonObject {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  const { parse, printParseErrorCode } = jsoncLib();
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0];
    const { line, column } = lineColumn(text, first.offset);
    throw new SfError('SF_E_CONFIG', `${file}:${line}:${column}: ${printParseErrorCode(first.error)}; Forge will not edit a config file it cannot parse`, {
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
    if (!isJsonObject(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/** A structural copy of `root` with `path` set to `value` (undefined deletes); missing parents are created. */
export function withPath(root: JsonObject, path: JsonPath, value: unknown): JsonObject {
  const copy = structuredClone(root);
  let cur: JsonObject = copy;
  for (const key of path.slice(0, -1)) {
    if (!isJsonObject(cur[key])) cur[key] = {};
    cur = cur[key] as JsonObject;
  }
  const last = path[path.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = structuredClone(value);
  return copy;
}

/**
 * Sets (or with `undefined` removes) one path in a JSON/JSONC text with jsonc-parser's
 * modify+applyEdits, so comments, key order, indentation and unknown keys stay as they were. The
 * result is re-parsed and must equal the old document with exactly that one change; otherwise the
 * edit is refused (SF_E_CONFIG) before anything is written.
 */
export function setJsonPath(text: string, path: JsonPath, value: unknown, eol: string, file: string): string {
  const before = parseJsonConfig(text, file);
  const base = text.trim() === '' ? '{}' : text;
  const { applyEdits, modify } = jsoncLib();
  const edits = modify(base, path, value, { formattingOptions: { ...detectIndent(base), eol } });
  const out = applyEdits(base, edits);
  const after = parseJsonConfig(out, file);
  if (!isDeepStrictEqual(after, withPath(before, path, value))) {
    throw new SfError('SF_E_CONFIG', `${file}: editing "${path.join('.')}" would change other settings; refusing`, {
      location: { file, pointer: path.join('.') },
      hint: 'The file may contain duplicate keys; remove them and run the command again. The file was not changed.',
    });
  }
  return out;
}
