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
  if (i === kids.length - 1) return t.text.slice(0, kids[i - 1].offset + kids[i - 1].length) + t.text.slice(kids[i].offset + kids[i].length);
  return t.text.slice(0, kids[i].offset) + t.text.slice(kids[i + 1].offset);
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
    const out = t.text.slice(0, existing.offset) + render(value, indent, unit(t.text), eol) + t.text.slice(existing.offset + existing.length);
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
