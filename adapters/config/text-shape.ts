/** The byte-level shape of a user's text file that an edit must keep. */
export interface TextShape {
  bom: boolean;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

const BOM = '\uFEFF';

/** Splits a UTF-8 BOM off `raw` and detects line endings (CRLF wins when it is the majority). */
export function detectShape(raw: string): { shape: TextShape; text: string } {
  const bom = raw.startsWith(BOM);
  const text = bom ? raw.slice(1) : raw;
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const lf = (text.match(/\n/g) ?? []).length - crlf;
  return { shape: { bom, eol: crlf > 0 && crlf >= lf ? '\r\n' : '\n', finalNewline: /\n$/.test(text) }, text };
}

/** Puts the BOM back. */
export function restoreShape(text: string, shape: TextShape): string {
  return shape.bom ? BOM + text : text;
}

/**
 * Indentation unit of a JSON-like text: the leading whitespace of the first indented line that
 * starts a property or value (tabs, or N spaces). Defaults to two spaces.
 */
export function detectIndent(text: string): { insertSpaces: boolean; tabSize: number } {
  const m = /\r?\n([ \t]+)["{[\d\-tfn]/.exec(text);
  if (!m) return { insertSpaces: true, tabSize: 2 };
  const ws = m[1];
  if (ws.startsWith('\t')) return { insertSpaces: false, tabSize: 1 };
  return { insertSpaces: true, tabSize: Math.min(ws.length, 8) };
}
