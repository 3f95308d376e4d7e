/**
 * Which lines of a comment body GitHub renders as code (CommonMark 0.31, as GFM uses it): fenced
 * code blocks (3 or more ``` or ~~~, closed by a fence of the same character at least as long, or
 * by the end of their container) and indented code blocks (4 columns in, which cannot interrupt a
 * paragraph). A FORGE tag on such a line is shown to readers as code, so it is not a tag.
 *
 * Containers are followed only as far as code needs: list items (their content column shifts the
 * 4-column rule, and closing an item closes a fence inside it) and HTML blocks (a fence inside one
 * is raw HTML, not a fence). Block quotes count as paragraph text: a tag behind `>` is never on its
 * own line anyway.
 */

export interface BlockScan {
  /** per line: rendered as code (the fence lines themselves included) */
  code: boolean[];
  /** a fence or HTML block still open after the last line swallows whatever follows it */
  open: 'fence' | 'html' | null;
}

interface Fence {
  char: string;
  length: number;
  /** number of list items open around it */
  depth: number;
}

interface Html {
  /** CommonMark HTML block type: 1-5 end at a marker, 6-7 at a blank line */
  end: RegExp | null;
  depth: number;
}

const FENCE_OPEN = /^(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^(`{3,}|~{3,})[ \t]*$/;
const THEMATIC_BREAK = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
const SETEXT_UNDERLINE = /^=+[ \t]*$/;
const LIST_MARKER = /^([-+*]|(\d{1,9})[.)])(?=[ \t]|$)/;
/** deeper list nesting is read as text: each level re-scans the rest of its line, so hostile input (`- - - ...`) would be quadratic */
const MAX_LIST_DEPTH = 32;

/** HTML block starts (CommonMark 4.6) with the marker that ends types 1-5. */
const HTML_ENDING: [RegExp, RegExp][] = [
  [/^<(?:script|pre|style|textarea)(?:[ \t>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^<!--/, /-->/],
  [/^<\?/, /\?>/],
  [/^<![A-Za-z]/, />/],
  [/^<!\[CDATA\[/, /\]\]>/],
];
const HTML_BLOCK_TAG =
  /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ \t]|\/?>|$)/i;
/** type 7: one complete open or closing tag alone on the line (cannot interrupt a paragraph) */
const HTML_LONE_TAG =
  /^(?:<[A-Za-z][A-Za-z0-9-]*(?:[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \t]*=[ \t]*(?:[^ \t"'=<>`]+|'[^']*'|"[^"]*"))?)*[ \t]*\/?>|<\/[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$/;

/** Columns of leading whitespace (tab stops of 4) and the text after it. */
function indentation(text: string, startColumn = 0): { columns: number; rest: string } {
  let column = startColumn;
  let i = 0;
  for (; i < text.length; i++) {
    if (text[i] === ' ') column++;
    else if (text[i] === '\t') column += 4 - (column % 4);
    else break;
  }
  return { columns: column - startColumn, rest: text.slice(i) };
}

/** Scans a body's lines (already split) for code blocks. Linear in the input. */
export function scanBlocks(lines: readonly string[]): BlockScan {
  const code: boolean[] = new Array<boolean>(lines.length).fill(false);
  /** content column of each open list item, innermost last */
  const items: number[] = [];
  let fence: Fence | null = null;
  let html: Html | null = null;
  let indented: { depth: number } | null = null;
  /** the previous line was paragraph text, which an indented line continues instead of starting code */
  let paragraph = false;
  /** content column of the container `depth` list items deep */
  const columnOf = (depth: number) => (depth === 0 ? 0 : items[depth - 1]);

  const startsBlock = (rest: string, relative: number): boolean => {
    if (relative >= 4) return false;
    if (THEMATIC_BREAK.test(rest) || ATX_HEADING.test(rest) || FENCE_OPEN.test(rest) || rest.startsWith('>')) return true;
    if (HTML_ENDING.some(([start]) => start.test(rest)) || HTML_BLOCK_TAG.test(rest)) return true;
    const m = LIST_MARKER.exec(rest);
    // inside a paragraph only a non-empty item, and an ordered one starting at 1, interrupts it
    return m !== null && rest.slice(m[0].length).trim() !== '' && (m[2] === undefined || m[2] === '1');
  };

  scan: for (let i = 0; i < lines.length; i++) {
    const text = lines[i];
    if (text.trim() === '') {
      code[i] = fence !== null || indented !== null;
      if (html && html.end === null) html = null;
      paragraph = false;
      continue scan;
    }
    const { columns, rest: content } = indentation(text);
    let depth = 0;
    while (depth < items.length && columns >= items[depth]) depth++;

    if (fence) {
      if (fence.depth <= depth) {
        const closing = FENCE_CLOSE.exec(content);
        if (columns - columnOf(fence.depth) < 4 && closing && closing[1][0] === fence.char && closing[1].length >= fence.length) fence = null;
        code[i] = true;
        continue scan;
      }
      fence = null; // its list item ended, and the fence with it
      items.length = depth;
    }
    if (html) {
      if (html.depth <= depth) {
        if (html.end?.test(text)) html = null;
        continue scan;
      }
      html = null;
      items.length = depth;
    }
    if (indented) {
      if (indented.depth <= depth && columns - columnOf(indented.depth) >= 4) {
        code[i] = true;
        continue scan;
      }
      indented = null;
    }

    const relative = columns - columnOf(depth);
    if (depth < items.length) {
      // a lazy continuation line keeps the list item open; anything else closes the deeper items
      if (paragraph && !startsBlock(content, relative)) continue scan;
      items.length = depth;
      paragraph = false;
    }
    if (relative >= 4) {
      if (paragraph) continue scan;
      indented = { depth: items.length };
      code[i] = true;
      continue scan;
    }

    let rest = content;
    let column = columns;
    for (;;) {
      if (THEMATIC_BREAK.test(rest) || ATX_HEADING.test(rest) || (paragraph && SETEXT_UNDERLINE.test(rest))) {
        paragraph = false;
        continue scan;
      }
      const marker = LIST_MARKER.exec(rest);
      if (marker && items.length < MAX_LIST_DEPTH && (!paragraph || startsBlock(rest, 0))) {
        const after = rest.slice(marker[0].length);
        const gap = indentation(after, column + marker[0].length);
        const markerEnd = column + marker[0].length;
        if (gap.rest === '') {
          items.push(markerEnd + 1);
          paragraph = false;
          continue scan;
        }
        if (gap.columns > 4) {
          // the item starts with indented code: its content column is one space after the marker
          items.push(markerEnd + 1);
          indented = { depth: items.length };
          code[i] = true;
          paragraph = false;
          continue scan;
        }
        items.push(markerEnd + gap.columns);
        rest = gap.rest;
        column = markerEnd + gap.columns;
        paragraph = false;
        continue;
      }
      const open = FENCE_OPEN.exec(rest);
      if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
        fence = { char: open[1][0], length: open[1].length, depth: items.length };
        code[i] = true;
        paragraph = false;
        continue scan;
      }
      const ending = HTML_ENDING.find(([start]) => start.test(rest));
      if (ending) {
        paragraph = false;
        if (!ending[1].test(rest)) html = { end: ending[1], depth: items.length };
        continue scan;
      }
      if (HTML_BLOCK_TAG.test(rest) || (!paragraph && HTML_LONE_TAG.test(rest))) {
        paragraph = false;
        html = { end: null, depth: items.length };
        continue scan;
      }
      paragraph = true;
      continue scan;
    }
  }
  return { code, open: fence ? 'fence' : html && html.end ? 'html' : null };
}
