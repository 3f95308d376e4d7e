import type { Document, Node } from 'yaml';
import { yamlLib } from './yaml-lib.js';

/** A 1-based position in a file. */
export interface Position {
  line: number;
  column: number;
}

/** Escapes one JSON-pointer segment (RFC 6901), the form ajv uses in `instancePath`. */
export function pointerSegment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** What YamlPositions needs of a line index: the yaml library's LineCounter, or lineIndexOf's. */
export interface LineIndex {
  /** 1-based line and column of `offset` (line 0: before the first line start) */
  linePos(offset: number): { line: number; col: number };
}

/**
 * The line index of `text` with the yaml library's LineCounter semantics (a line starts at 0 and
 * after every newline), for documents read without the library.
 */
export function lineIndexOf(text: string): LineIndex {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return {
    linePos(offset) {
      let low = 0;
      let high = starts.length;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (starts[mid] < offset) low = mid + 1;
        else high = mid;
      }
      if (starts[low] === offset) return { line: low + 1, col: 1 };
      if (low === 0) return { line: 0, col: offset };
      return { line: low, col: offset - starts[low - 1] + 1 };
    },
  };
}

/**
 * Maps JSON pointers of a parsed YAML document to the position of the node that introduced them:
 * the key of a mapping pair, or the start of a sequence item. `lineOffset` shifts lines when the
 * YAML was cut out of a larger file (frontmatter starts on line 2).
 */
export class YamlPositions {
  /**
   * `offsets`: the offset behind each pointer (see yaml-plain.ts; fromDocument finds them in a
   * parsed document).
   */
  constructor(
    private readonly offsets: Map<string, number>,
    private readonly lines: LineIndex,
    private readonly lineOffset: number,
  ) {}

  /** The positions of a document parsed by the yaml library. */
  static fromDocument(doc: Document, lines: LineIndex, lineOffset: number): YamlPositions {
    return new YamlPositions(documentOffsets(doc), lines, lineOffset);
  }

  /** Position of `pointer`, or of its nearest ancestor that has one; the document start for ''. */
  locate(pointer: string): Position {
    let p = pointer;
    for (;;) {
      const offset = this.offsets.get(p);
      if (offset !== undefined) return this.toPosition(offset);
      if (p === '') return { line: this.lineOffset + 1, column: 1 };
      p = p.slice(0, p.lastIndexOf('/'));
    }
  }

  private toPosition(offset: number): Position {
    const { line, col } = this.lines.linePos(offset);
    return { line: line + this.lineOffset, column: col };
  }
}

/** The offset behind every pointer of a parsed document. */
export function documentOffsets(doc: Document): Map<string, number> {
  const offsets = new Map<string, number>();
  if (doc.contents) visit(doc.contents as Node, '', offsets);
  return offsets;
}

/** Records the offset of every pointer below `node` (the key of a pair, the start of an item). */
function visit(node: Node | null, pointer: string, offsets: Map<string, number>): void {
  const { isMap, isScalar, isSeq } = yamlLib();
  if (isMap(node)) {
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      const child = `${pointer}/${pointerSegment(key)}`;
      const start = keyNode?.range?.[0] ?? (pair.value as Node | null)?.range?.[0];
      if (start !== undefined && !offsets.has(child)) offsets.set(child, start);
      visit(pair.value as Node | null, child, offsets);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      const child = `${pointer}/${i}`;
      const start = (item as Node | null)?.range?.[0];
      if (start !== undefined) offsets.set(child, start);
      visit(item as Node | null, child, offsets);
    });
  }
}
