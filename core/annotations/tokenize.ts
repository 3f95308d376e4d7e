import { scanBlocks } from './code-blocks.js';

/**
 * Line tokenizer for comment bodies. FORGE tags are recognized only when they stand on their own
 * line (3.1); everything else is Markdown text. A line that starts like a FORGE tag but is not a
 * valid one is `malformed`: it still ends the annotation before it, because 3.1 ends an annotation
 * at "the next `<!-- FORGE:` tag", and a truncated tag is exactly what an interrupted producer leaves.
 * A line inside a fenced or indented code block is always text (`code`): GitHub shows it as code.
 */

export type SentinelWhich = 'COMPLETE' | 'PARTIAL';

export type LineToken =
  | { kind: 'text'; line: number; text: string; code?: true }
  | { kind: 'open'; line: number; text: string; type: string; canonical: boolean }
  | { kind: 'inline'; line: number; text: string; type: string; value: string; canonical: boolean }
  | { kind: 'sentinel'; line: number; text: string; name: string; which: SentinelWhich; forge: boolean; canonical: boolean }
  | { kind: 'malformed'; line: number; text: string };

const IDENT = '[A-Z][A-Z0-9_]*';
const OPEN = new RegExp(`^FORGE:(${IDENT})$`);
const SENTINEL = new RegExp(`^((?:FORGE:)?${IDENT}(?::${IDENT})*):(COMPLETE|PARTIAL)$`);
const INLINE = new RegExp(`^FORGE:(${IDENT}):(\\s*)(.*)$`, 's');
const COMMENT = /^<!--([\s\S]*?)-->$/;
const FORGE_START = /^<!--\s*FORGE:/i;
/** a FORGE tag or sentinel somewhere inside a longer line (not at its start) */
const EMBEDDED = /(^|[^`])<!--\s{0,8}(?:FORGE:[A-Z]|INVESTIGATION:(?:COMPLETE|PARTIAL))[^>]{0,300}-->/;

/** Splits a body into lines, treating CRLF and lone CR as line ends (platform APIs return both). */
export function splitLines(body: string): string[] {
  return body.replace(/\r\n?/g, '\n').split('\n');
}

/** Classifies one line (1-based `line` number) of a comment body. */
export function classifyLine(text: string, line: number): LineToken {
  const trimmed = text.trim();
  const m = COMMENT.exec(trimmed);
  if (!m) {
    return FORGE_START.test(trimmed) ? { kind: 'malformed', line, text } : { kind: 'text', line, text };
  }
  const inner = m[1].trim();
  const canonical = trimmed === `<!-- ${inner} -->`;
  let r: RegExpExecArray | null;
  if ((r = OPEN.exec(inner))) return { kind: 'open', line, text, type: r[1], canonical };
  if ((r = SENTINEL.exec(inner))) {
    return { kind: 'sentinel', line, text, name: r[1], which: r[2] as SentinelWhich, forge: r[1].startsWith('FORGE:'), canonical };
  }
  if ((r = INLINE.exec(inner))) {
    const value = r[3].trim();
    return { kind: 'inline', line, text, type: r[1], value, canonical: canonical && r[2] === ' ' && value === r[3] };
  }
  return FORGE_START.test(trimmed) ? { kind: 'malformed', line, text } : { kind: 'text', line, text };
}

/** Tokenizes a whole comment body, one token per line; lines of code blocks are text. */
export function tokenize(body: string): LineToken[] {
  const lines = splitLines(body);
  const { code } = scanBlocks(lines);
  return lines.map((text, i) => (code[i] ? { kind: 'text', line: i + 1, text, code: true } : classifyLine(text, i + 1)));
}

/** True when a text line carries a FORGE tag or sentinel that is not on its own line (so it is ignored). */
export function hasEmbeddedTag(text: string): boolean {
  return EMBEDDED.test(text) && !text.trim().startsWith('<!--');
}
