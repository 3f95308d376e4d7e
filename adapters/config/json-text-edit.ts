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
    const compact = onOneLine(t.text, node.parent?.parent);
    if (inner.trim() === '' && compact) return t.text.slice(0, node.offset + 1) + entry(null) + t.text.slice(close);
    if (inner.trim() === '') return t.text.slice(0, node.offset + 1) + t.eol + indent + u + entry(indent + u) + t.eol + indent + t.text.slice(close);
    // a one-line container holding a comment, in a one-line object: the entry goes after the
    // comment on that line, one space away (what removal takes back), nothing is reflowed
    if (compact && !inner.includes('\n')) {
      const head = inner.trimEnd();
      return t.text.slice(0, node.offset + 1) + head + ' ' + entry(null) + inner.slice(head.length) + t.text.slice(close);
    }
    // an empty container holding comments: they stay, and the entry goes on a line after them
    const head = t.text.slice(0, close).replace(/[ \t]*$/, '');
    return head + (head.endsWith('\n') ? '' : t.eol) + indent + u + entry(indent + u) + t.eol + indent + t.text.slice(close);
  }
  const last = kids[kids.length - 1];
  const { indent, ownLine } = lineIndent(t.text, last.offset);
  const end = last.offset + last.length;
  // the user's comment at the end of the last entry's line stays on that line: the entry goes on
  // the next line, after a comma put right after the value (or with its own trailing comma when
  // the user's entry has one), so removing it gives that line back as it was
  const commented = commentAfter(t.text, end, close, ownLine);
  // the user's trailing comma on a later line (comma-first style): the entry goes right after it,
  // with no comma of its own, so removing it gives that comma back where it was
  if (commented?.afterComma) return t.text.slice(0, commented.at) + (ownLine ? t.eol + indent : ' ') + entry(ownLine ? indent : null) + t.text.slice(commented.at);
  if (commented) {
    // with the user's trailing comma, the entry gets one of its own; else a comma goes right after the value
    const [before, after] = commented.comma ? [t.text.slice(0, commented.at), ','] : [t.text.slice(0, end) + ',' + t.text.slice(end, commented.at), ''];
    return before + (ownLine ? t.eol + indent : ' ') + entry(ownLine ? indent : null) + after + t.text.slice(commented.at);
  }
  return t.text.slice(0, end) + (ownLine ? ',' + t.eol + indent : ', ') + entry(ownLine ? indent : null) + t.text.slice(end);
}

/**
 * Comments of the user's after offset `from` (the end of a container's last child): where an
 * entry goes so they stay with that child, and whether a comma comes first. On separate lines:
 * the end of the child's line (before its line break), when a comment is on it, or just after the
 * child's trailing comma when that is on a later line after the comment (`afterComma`); on one line: just after the
 * last comment before the closing bracket. Undefined when there is no such comment, or anything
 * but a comma, comments and blanks follows.
 */
function commentAfter(text: string, from: number, to: number, ownLine: boolean): { at: number; comma: boolean; afterComma?: boolean } | undefined {
  const scanner = jsoncLib().createScanner(text.slice(from, to), false);
  let comma = false;
  let commentEnd: number | undefined;
  for (let kind = scanner.scan(); kind !== SCAN_EOF; kind = scanner.scan()) {
    if (kind === SCAN_TRIVIA) continue;
    if (kind === SCAN_COMMA && !comma && commentEnd === undefined) comma = true;
    else if (kind === SCAN_LINE_COMMENT || kind === SCAN_BLOCK_COMMENT) commentEnd = from + scanner.getTokenOffset() + scanner.getTokenLength();
    else if (kind === SCAN_LINE_BREAK && ownLine) {
      // (without a comment, the comma after the value plus the user's below it come out as they went in)
      const later = comma || commentEnd === undefined ? undefined : laterComma(text, from + scanner.getTokenOffset(), to);
      if (later !== undefined) return { at: later + 1, comma: true, afterComma: true };
      // a line ending is \n or \r\n: the entry goes before it
      return commentEnd === undefined ? undefined : { at: from + scanner.getTokenOffset(), comma };
    } else return undefined;
  }
  return !ownLine && commentEnd !== undefined ? { at: commentEnd, comma } : undefined;
}

/** Offset of a comma that is the first token in `text[from, to)` with only comments and blanks after it, if any. */
function laterComma(text: string, from: number, to: number): number | undefined {
  const scanner = jsoncLib().createScanner(text.slice(from, to), false);
  let comma: number | undefined;
  for (let kind = scanner.scan(); kind !== SCAN_EOF; kind = scanner.scan()) {
    if (kind === SCAN_TRIVIA || kind === SCAN_LINE_BREAK || kind === SCAN_LINE_COMMENT || kind === SCAN_BLOCK_COMMENT) continue;
    if (kind !== SCAN_COMMA || comma !== undefined) return undefined;
    comma = from + scanner.getTokenOffset();
  }
  return comma;
}

/** Cuts child `i` of container `node` together with its separator. */
function cutChild(t: Text, node: Node, i: number): string {
  const kids = node.children!;
  if (kids.length === 1) {
    const open = node.offset + 1;
    const close = node.offset + node.length - 1;
    const kid = kids[0];
    let end = kid.offset + kid.length;
    const comma = commaIn(t.text, end, close);
    if (comma !== undefined && onlyBlank(t.text.slice(end, comma))) end = comma + 1;
    // nothing but whitespace around it: back to the empty container `{}` (observe-json.ts puts
    // back the whitespace it held before, when it recorded that)
    if (onlyBlank(t.text.slice(open, kid.offset)) && onlyBlank(t.text.slice(end, close))) return t.text.slice(0, open) + t.text.slice(close);
    // comments of the user's are around it, and stay: the child's own line goes when it is alone there
    const lineStart = t.text.lastIndexOf('\n', kid.offset - 1) + 1;
    const after = /^[ \t]*\r?\n/.exec(t.text.slice(end, close));
    if (lineStart > node.offset && onlyBlank(t.text.slice(lineStart, kid.offset)) && after) return t.text.slice(0, lineStart) + t.text.slice(end + after[0].length);
    // else only the child, with the space insertLast put between it and a comment before it
    const spaced = t.text[kid.offset - 1] === ' ' && !onlyBlank(t.text.slice(open, kid.offset));
    return t.text.slice(0, kid.offset - (spaced ? 1 : 0)) + t.text.slice(end);
  }
  const kid = kids[i];
  const start = kid.offset;
  const end = kid.offset + kid.length;
  const close = node.offset + node.length - 1;
  const { ownLine } = lineIndent(t.text, start);
  const lineStart = t.text.lastIndexOf('\n', start - 1) + 1;
  const last = i === kids.length - 1;
  const prevEnd = i > 0 ? kids[i - 1].offset + kids[i - 1].length : node.offset + 1;
  const sep = commaIn(t.text, prevEnd, start);
  // insertLast puts its comma right after the previous value: one on a later line, or after a
  // comment, is the user's own trailing comma (comma-first style), which the child went in after
  const usersComma = sep !== undefined && /[\n/]/.test(t.text.slice(prevEnd, sep));
  // the last child with only a comma and blanks before it: exactly what insertLast added
  if (last && !usersComma && onlyBlank(t.text.slice(prevEnd, start).replace(',', '')) && sep !== undefined) return t.text.slice(0, prevEnd) + t.text.slice(end);
  // a child followed by a comma (one in the middle, or a last one with a trailing comma) goes
  // with that comma; comments around it are the user's and stay
  const comma = commaIn(t.text, end, last ? close : kids[i + 1].offset);
  if (comma !== undefined) {
    if (!onlyBlank(t.text.slice(end, comma))) return cut(t.text, [start, end], [comma, comma + 1]);
    // on one line after the user's comment, one space away, with its own comma: what insertLast added
    if (last && !ownLine && comma === end && t.text[start - 1] === ' ' && t.text.slice(0, start - 1).endsWith('*/')) return cut(t.text, [start - 1, comma + 1]);
    let to = comma + 1 + /^[ \t]*/.exec(t.text.slice(comma + 1))![0].length;
    const eol = /^\r?\n/.exec(t.text.slice(to));
    // the whole line when nothing else is on it
    if (ownLine && eol) return cut(t.text, [lineStart, to + eol[0].length]);
    return cut(t.text, [start, to]);
  }
  // the last child, with comments before it: it goes with the comma after the previous one
  if (sep === undefined) return t.text.slice(0, prevEnd) + t.text.slice(end);
  // right after the user's own trailing comma: only the child and the blank before it go
  if (usersComma && onlyBlank(t.text.slice(sep + 1, start))) return t.text.slice(0, sep + 1) + t.text.slice(end);
  const eol = /^[ \t]*\r?\n/.exec(t.text.slice(end));
  if (ownLine) return cut(t.text, [sep, sep + 1], [lineStart, eol ? end + eol[0].length : end]);
  return cut(t.text, [sep, sep + 1], [start - /[ \t]*$/.exec(t.text.slice(0, start))![0].length, end]);
}

// jsonc-parser's SyntaxKind values (a const enum, not importable at run time)
const SCAN_COMMA = 5;
const SCAN_LINE_COMMENT = 12;
const SCAN_BLOCK_COMMENT = 13;
const SCAN_LINE_BREAK = 14;
const SCAN_TRIVIA = 15;
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

/** The text between the brackets of the empty object or list at `path` ([]: the document), or undefined when it is absent, not empty or holds nothing. */
export function emptyContainerText(text: string, path: JsonPath): string | undefined {
  if (text.trim() === '') return undefined;
  const node = path.length === 0 ? root({ text, eol: '\n', file: '' }) : findNodeAtLocation(root({ text, eol: '\n', file: '' }), path);
  if (!node || (node.type !== 'object' && node.type !== 'array') || (node.children ?? []).length > 0) return undefined;
  const inner = text.slice(node.offset + 1, node.offset + node.length - 1);
  return inner === '' ? undefined : inner;
}

/**
 * Puts `inner` back between the brackets of the empty container at `path`, when what is there
 * now is blank or differs from it in whitespace only (what removing Forge's last entry from it
 * left), so a user's `{ }`, `{\n  }` or `{ /* none yet *\/ }` comes back byte for byte; a comment
 * of the user's there now is left alone.
 */
export function restoreEmptyContainer(text: string, path: JsonPath, inner: string, file: string): string {
  if (text.trim() === '') return text;
  const node = path.length === 0 ? root({ text, eol: '\n', file }) : findNodeAtLocation(root({ text, eol: '\n', file }), path);
  if (!node || (node.type !== 'object' && node.type !== 'array') || (node.children ?? []).length > 0) return text;
  const now = text.slice(node.offset + 1, node.offset + node.length - 1);
  const bare = (s: string) => s.replace(/\s+/g, '');
  if (now === inner || (now.trim() !== '' && bare(now) !== bare(inner))) return text;
  const out = text.slice(0, node.offset + 1) + inner + text.slice(node.offset + node.length - 1);
  // whitespace and the comments it held before: the settings are the same
  return isDeepStrictEqual(parseJsonConfig(out, file), parseJsonConfig(text, file)) ? out : text;
}
