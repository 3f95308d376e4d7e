import { isDeepStrictEqual } from 'node:util';
import type { Node } from 'jsonc-parser';
import { jsoncLib } from './jsonc-lib.js';
import { SfError } from '../../core/errors/index.js';
import { getPath, parseJsonConfig, withPath, type JsonPath } from './json-edit.js';
import { detectIndent } from './text-shape.js';

/**
 * Byte-preserving JSON/JSONC edits for settings Forge adds and later takes away again: a new
 * property or list item is spliced in after the last sibling in the sibling's own indentation,
 * and removal cuts exactly that span back out, so install followed by uninstall gives the
 * original bytes. Nothing else is reformatted (jsonc-parser's formatter reflows whole lines).
 * Every edit is checked: the re-parsed document must equal the old one with exactly that change.
 */

type Text = { text: string; eol: string; file: string };

function unit(text: string): string {
  const i = detectIndent(text);
  return i.insertSpaces ? ' '.repeat(i.tabSize) : '\t';
}

/** Leading whitespace of the line `offset` is on, and whether only whitespace precedes it there. */
function lineIndent(text: string, offset: number): { indent: string; ownLine: boolean } {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(start, offset);
  const indent = /^[ \t]*/.exec(before)![0];
  return { indent, ownLine: before.trim() === '' };
}

/** Whether container `node` (an object or list holding the edited spot; none: the document) is written on one line. */
function onOneLine(text: string, node: Node | undefined): boolean {
  return node !== undefined && !text.slice(node.offset, node.offset + node.length).includes('\n');
}

/** `value` as JSON at `indent` (multi-line), or compact on one line when `indent` is null. */
const render = (value: unknown, indent: string | null, u: string, eol: string) => (indent === null ? JSON.stringify(value) : JSON.stringify(value, null, u).replace(/\n/g, eol + indent));

function verified(t: Text, out: string, path: JsonPath, value: unknown): string {
  const before = parseJsonConfig(t.text, t.file);
  if (!isDeepStrictEqual(parseJsonConfig(out, t.file), withPath(before, path, value))) {
    throw new SfError('SF_E_CONFIG', `${t.file}: editing "${path.join('.')}" would change other settings; refusing`, {
      location: { file: t.file, pointer: path.join('.') },
      hint: 'The file may contain duplicate keys; remove them and run the command again. The file was not changed.',
    });
  }
  return out;
}

/**
 * Inserts `entry` (rendered `"key": value` or a list item) as the last child of container `node`.
 * `entry` gets the indentation to render at, or null for a container written on one line, where
 * the entry goes on that line too (compact), so nothing around it is reflowed.
 */
function insertLast(t: Text, node: Node, entry: (indent: string | null) => string): string {
  const u = unit(t.text);
  const close = node.offset + node.length - 1;
  const kids = node.children ?? [];
  if (kids.length === 0) {
    const { indent } = lineIndent(t.text, node.offset);
    const inner = t.text.slice(node.offset + 1, close);
    if (inner.trim() === '' && onOneLine(t.text, node.parent?.parent)) return t.text.slice(0, node.offset + 1) + entry(null) + t.text.slice(close);
    if (inner.trim() === '') return t.text.slice(0, node.offset + 1) + t.eol + indent + u + entry(indent + u) + t.eol + indent + t.text.slice(close);
    // an empty container holding comments: they stay, and the entry goes on a line after them
    const head = t.text.slice(0, close).replace(/[ \t]*$/, '');
    return head + (head.endsWith('\n') ? '' : t.eol) + indent + u + entry(indent + u) + t.eol + indent + t.text.slice(close);
  }
  const last = kids[kids.length - 1];
  const { indent, ownLine } = lineIndent(t.text, last.offset);
  const end = last.offset + last.length;
  return t.text.slice(0, end) + (ownLine ? ',' + t.eol + indent : ', ') + entry(ownLine ? indent : null) + t.text.slice(end);
}

/** Cuts child `i` of container `node` together with its separator. */
function cutChild(t: Text, node: Node, i: number): string {
  const kids = node.children!;
  if (kids.length === 1) {
    const close = node.offset + node.length - 1;
    const kid = kids[0];
    // the child's own line, and the line break after it
    const lineStart = t.text.lastIndexOf('\n', kid.offset - 1) + 1;
    const after = /^[ \t]*\r?\n/.exec(t.text.slice(kid.offset + kid.length, close));
    const rest = t.text.slice(node.offset + 1, lineStart) + (after ? t.text.slice(kid.offset + kid.length + after[0].length, close) : '');
    // nothing but whitespace around it: back to the empty container `{}`; comments there stay
    if (rest.trim() === '' || lineStart <= node.offset || t.text.slice(lineStart, kid.offset).trim() !== '') return t.text.slice(0, node.offset + 1) + t.text.slice(close);
    return t.text.slice(0, lineStart) + t.text.slice(kid.offset + kid.length + (after ? after[0].length : 0));
  }
  const kid = kids[i];
  const start = kid.offset;
  const end = kid.offset + kid.length;
  const close = node.offset + node.length - 1;
  const { ownLine } = lineIndent(t.text, start);
  const lineStart = t.text.lastIndexOf('\n', start - 1) + 1;
  const last = i === kids.length - 1;
  const prevEnd = i > 0 ? kids[i - 1].offset + kids[i - 1].length : node.offset + 1;
  // the last child with only a comma and blanks before it: exactly what insertLast added
  if (last && onlyBlank(t.text.slice(prevEnd, start).replace(',', '')) && commaIn(t.text, prevEnd, start) !== undefined) return t.text.slice(0, prevEnd) + t.text.slice(end);
  // a child followed by a comma (one in the middle, or a last one with a trailing comma) goes
  // with that comma; comments around it are the user's and stay
  const comma = commaIn(t.text, end, last ? close : kids[i + 1].offset);
  if (comma !== undefined) {
    if (!onlyBlank(t.text.slice(end, comma))) return cut(t.text, [start, end], [comma, comma + 1]);
    let to = comma + 1 + /^[ \t]*/.exec(t.text.slice(comma + 1))![0].length;
    const eol = /^\r?\n/.exec(t.text.slice(to));
    // the whole line when nothing else is on it
    if (ownLine && eol) return cut(t.text, [lineStart, to + eol[0].length]);
    return cut(t.text, [start, to]);
  }
  // the last child, with comments before it: it goes with the comma after the previous one
  const sep = commaIn(t.text, prevEnd, start);
  if (sep === undefined) return t.text.slice(0, prevEnd) + t.text.slice(end);
  const eol = /^[ \t]*\r?\n/.exec(t.text.slice(end));
  if (ownLine) return cut(t.text, [sep, sep + 1], [lineStart, eol ? end + eol[0].length : end]);
  return cut(t.text, [sep, sep + 1], [start - /[ \t]*$/.exec(t.text.slice(0, start))![0].length, end]);
}

// jsonc-parser's SyntaxKind values (a const enum, not importable at run time)
const SCAN_COMMA = 5;
const SCAN_EOF = 17;

const onlyBlank = (s: string): boolean => s.trim() === '';

/** Offset of the first comma token in `text[from, to)` (comments skipped), if any. */
function commaIn(text: string, from: number, to: number): number | undefined {
  const scanner = jsoncLib().createScanner(text.slice(from, to), false);
  for (let kind = scanner.scan(); kind !== SCAN_EOF; kind = scanner.scan()) {
    if (kind === SCAN_COMMA) return from + scanner.getTokenOffset();
  }
  return undefined;
}

/** `text` without the given (disjoint) ranges. */
function cut(text: string, ...ranges: [number, number][]): string {
  let out = text;
  for (const [a, b] of [...ranges].sort((x, y) => y[0] - x[0])) out = out.slice(0, a) + out.slice(b);
  return out;
}

function root(t: Text): Node {
  const base = t.text.trim() === '' ? '{}' : t.text;
  return jsoncLib().parseTree(base)!;
}

const findNodeAtLocation = (tree: Node, path: JsonPath): Node | undefined => jsoncLib().findNodeAtLocation(tree, path);

/** Sets `path` to `value`; missing parent objects are created in the same splice. */
export function setJsonText(text: string, path: JsonPath, value: unknown, eol: string, file: string): string {
  const t: Text = { text: text.trim() === '' ? '{}' : text, eol, file };
  const tree = root(t);
  const existing = findNodeAtLocation(tree, path);
  if (existing) {
    const { indent } = lineIndent(t.text, existing.parent?.offset ?? existing.offset);
    // inside an object written on one line the new value stays on that line
    const at = onOneLine(t.text, existing.parent?.parent) ? null : indent;
    const out = t.text.slice(0, existing.offset) + render(value, at, unit(t.text), eol) + t.text.slice(existing.offset + existing.length);
    return verified({ ...t, text }, out, path, value);
  }
  let depth = path.length - 1;
  while (depth > 0 && !findNodeAtLocation(tree, path.slice(0, depth))) depth--;
  const parent = depth === 0 ? tree : findNodeAtLocation(tree, path.slice(0, depth))!;
  if (parent.type !== 'object') {
    throw new SfError('SF_E_CONFIG', `${file}: "${path.slice(0, depth).join('.')}" is not an object, so Forge cannot add "${path.join('.')}"`, {
      location: { file, pointer: path.slice(0, depth).join('.') },
      hint: `Write "${path.slice(0, depth).join('.')}" as an object and run the command again; the file was not changed.`,
    });
  }
  const nested = path.slice(depth + 1).reduceRight<unknown>((v, k) => ({ [k]: v }), value);
  const out = insertLast(t, parent, (indent) => `${JSON.stringify(path[depth])}: ${render(nested, indent, unit(t.text), eol)}`);
  return verified({ ...t, text }, out, path, value);
}

/** Removes the property at `path` (no change when it is absent). */
export function removeJsonText(text: string, path: JsonPath, eol: string, file: string): string {
  const t: Text = { text, eol, file };
  if (text.trim() === '') return text;
  const prop = findNodeAtLocation(root(t), path)?.parent;
  if (!prop || prop.type !== 'property') return text;
  const container = prop.parent!;
  return verified(t, cutChild(t, container, container.children!.indexOf(prop)), path, undefined);
}

/** Appends `value` to the list at `path` (created when absent). */
export function appendJsonItem(text: string, path: JsonPath, value: unknown, eol: string, file: string): string {
  const t: Text = { text: text.trim() === '' ? '{}' : text, eol, file };
  const cur = getPath(parseJsonConfig(t.text, file), path);
  if (cur === undefined) return setJsonText(text, path, [value], eol, file);
  const node = findNodeAtLocation(root(t), path);
  if (!Array.isArray(cur) || node?.type !== 'array') {
    throw new SfError('SF_E_CONFIG', `${file}: "${path.join('.')}" is not a list, so Forge cannot add its entry`, {
      location: { file, pointer: path.join('.') },
      hint: `Write "${path.join('.')}" as a JSON array and run the command again; the file was not changed.`,
    });
  }
  const out = insertLast(t, node, (indent) => render(value, indent, unit(t.text), eol));
  return verified({ ...t, text }, out, path, [...cur, value]);
}

/** Removes item `index` of the list at `path`. */
export function removeJsonItem(text: string, path: JsonPath, index: number, eol: string, file: string): string {
  const t: Text = { text, eol, file };
  const node = findNodeAtLocation(root(t), path);
  const cur = getPath(parseJsonConfig(text, file), path);
  if (node?.type !== 'array' || !Array.isArray(cur) || index < 0 || index >= cur.length) return text;
  return verified(t, cutChild(t, node, index), path, cur.filter((_, i) => i !== index));
}
