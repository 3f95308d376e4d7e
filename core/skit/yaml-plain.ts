/**
 * The plain subset of YAML that most frontmatter is written in, read without the yaml library:
 * block mappings with simple keys, block sequences (including `- key: value` items), one-line flow
 * sequences of plain scalars, and plain scalars that are strings, booleans, null or small
 * integers, in printable ASCII. Anything else (quotes, comments, anchors, tags, block scalars,
 * multi-line scalars, tabs, other number forms, duplicate keys, odd indentation, ...) returns
 * undefined and the caller parses with the yaml library instead, so the result is always what the
 * yaml library would give; yaml-plain.test.ts checks that against it on generated documents.
 *
 * Why: the first parse of a process runs the yaml library's code cold, about 10 ms of every
 * `sf skit hash`, `validate` and `add`, for a README frontmatter of a few kilobytes.
 */

export interface PlainYaml {
  /** the document as the yaml library's toJS() gives it (a mapping; `{}` for an empty document) */
  data: Record<string, unknown>;
  /** offset of the node behind each JSON pointer: a mapping key, or the start of a sequence item (as YamlPositions records them) */
  offsets: Map<string, number>;
}

interface Line {
  indent: number;
  /** the line without its indentation and trailing spaces */
  text: string;
  /** offset of `text` in the document */
  at: number;
}

/** Printable ASCII and newlines only, without the characters that start YAML's other syntax. */
const PLAIN_DOCUMENT = /^[\n\x20-\x7e]*$/;
const SPECIAL = /[#&*!|>'"{}%@`\\?\t]/;
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const UNSAFE_SCALAR_START = /^[-?:,[\]{}#&*!|>'"%@`.+0-9 ]/;
// the yaml library's core schema tests (yaml/dist/schema/core, common/null.js)
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const DECIMAL = /^[-+]?[0-9]+$/;
const SMALL_DECIMAL = /^(?:0|[1-9][0-9]{0,14})$/;

class NotPlain extends Error {}

/** The document `text`, or undefined when it is not in the plain subset (parse it with the yaml library). */
export function parsePlainYaml(text: string): PlainYaml | undefined {
  if (!PLAIN_DOCUMENT.test(text) || SPECIAL.test(text)) return undefined;
  const lines: Line[] = [];
  let at = 0;
  for (const raw of text.split('\n')) {
    const body = raw.trimEnd();
    const indent = body.length - body.trimStart().length;
    if (body.length > 0) lines.push({ indent, text: body.slice(indent), at: at + indent });
    at += raw.length + 1;
  }
  const offsets = new Map<string, number>();
  try {
    if (lines.length === 0) return { data: {}, offsets };
    if (lines[0].indent !== 0) return undefined;
    const parser = new PlainParser(lines, offsets);
    const data = parser.mapping(0, 0, '');
    if (parser.next !== lines.length) return undefined;
    return { data, offsets };
  } catch (e) {
    if (e instanceof NotPlain) return undefined;
    throw e;
  }
}

class PlainParser {
  /** the next line to read */
  next = 0;

  constructor(
    private readonly lines: readonly Line[],
    private readonly offsets: Map<string, number>,
  ) {}

  /**
   * The block mapping whose keys stand at column `indent`, starting with line `this.next` (or with
   * `first`, a `key: value` that follows a sequence dash, at offset `firstAt`).
   */
  mapping(indent: number, firstAt: number, pointer: string, first?: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let pending = first;
    let pendingAt = firstAt;
    for (;;) {
      let text: string;
      let keyAt: number;
      if (pending !== undefined) {
        text = pending;
        keyAt = pendingAt;
        pending = undefined;
      } else {
        const line = this.lines[this.next];
        if (!line || line.indent < indent) return out;
        if (line.indent > indent) throw new NotPlain();
        text = line.text;
        keyAt = line.at;
      }
      this.next++;
      const m = KEY_LINE.exec(text);
      if (!m || NULL.test(m[1]) || BOOL.test(m[1]) || DECIMAL.test(m[1])) throw new NotPlain();
      const key = m[1];
      if (Object.hasOwn(out, key) || key === '__proto__') throw new NotPlain();
      const child = `${pointer}/${key}`;
      this.offsets.set(child, keyAt);
      const rest = m[2];
      if (rest !== undefined && rest.length > 0) {
        // (a more indented line after it would continue the scalar: the next turn declines it)
        out[key] = this.inline(rest, keyAt + text.length - rest.length, child);
        continue;
      }
      const after = this.lines[this.next];
      if (after && after.indent > indent) {
        out[key] = isDash(after.text) ? this.sequence(after.indent, child) : this.mapping(after.indent, 0, child);
      } else if (after && after.indent === indent && isDash(after.text)) {
        // a sequence may stand at its key's own indentation
        out[key] = this.sequence(indent, child);
      } else {
        out[key] = null;
      }
    }
  }

  /** The block sequence whose dashes stand at column `indent`, starting with line `this.next`. */
  sequence(indent: number, pointer: string): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      const line = this.lines[this.next];
      if (!line || line.indent < indent) return out;
      if (line.indent > indent || !isDash(line.text)) {
        // a key at the sequence's indentation ends it (it belongs to the mapping around it)
        if (line.indent === indent && KEY_LINE.test(line.text)) return out;
        throw new NotPlain();
      }
      const content = line.text.slice(2);
      const contentAt = line.at + 2;
      const child = `${pointer}/${out.length}`;
      if (content.length === 0 || content.startsWith(' ') || isDash(content)) throw new NotPlain();
      this.offsets.set(child, contentAt);
      if (KEY_LINE.test(content)) {
        // `- key: value` opens a mapping whose keys line up with this first one
        out.push(this.mapping(indent + 2, contentAt, child, content));
      } else {
        this.next++;
        out.push(this.inline(content, contentAt, child));
      }
    }
  }

  /** A value on the rest of a line: a one-line flow sequence or a plain scalar. */
  inline(text: string, at: number, pointer: string): unknown {
    if (!text.startsWith('[')) return scalar(text);
    if (!text.endsWith(']')) throw new NotPlain();
    const inner = text.slice(1, -1);
    if (inner.trim().length === 0) return [];
    const items: unknown[] = [];
    let start = 1;
    for (const part of inner.split(',')) {
      const lead = part.length - part.trimStart().length;
      const item = part.trim();
      // (scalar() declines an item holding a bracket or a colon)
      if (item.length === 0) throw new NotPlain();
      this.offsets.set(`${pointer}/${items.length}`, at + start + lead);
      items.push(scalar(item));
      start += part.length + 1;
    }
    return items;
  }
}

/** `- ` or a lone `-`: a sequence entry. */
const isDash = (text: string) => text === '-' || text.startsWith('- ');

/** A plain scalar as the yaml library's core schema resolves it; NotPlain for the forms left to it. */
function scalar(text: string): unknown {
  if (UNSAFE_SCALAR_START.test(text) || text.includes(':') || text.includes('[') || text.includes(']')) {
    // digits and signs start numbers: a small decimal integer is read here, anything else is not
    if (SMALL_DECIMAL.test(text)) return Number(text);
    throw new NotPlain();
  }
  if (NULL.test(text)) return null;
  if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  return text;
}
