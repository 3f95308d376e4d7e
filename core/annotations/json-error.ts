import { parse as parseTolerant, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { Diagnostic } from '../errors/index.js';
import { lineColumn } from '../text/line-column.js';

/**
 * The warning for input that looks like JSON (starts with `[` or `{`) but does not parse: it is
 * then read as one Markdown body, which would otherwise silently find no annotations in a thread
 * with a trailing comma. V8's message has no position on Node 20, so the first syntax error is
 * located with jsonc-parser (strict: no comments, no trailing commas).
 */
export function notJsonWarning(text: string, error: unknown): Diagnostic {
  const errors: ParseError[] = [];
  parseTolerant(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  const at = first ? lineColumn(text, first.offset) : undefined;
  const reason = first ? `${printParseErrorCode(first.error)} at line ${at!.line}, column ${at!.column}` : firstLine(error);
  return {
    code: 'FORGE_INPUT_NOT_JSON',
    severity: 'warning',
    message: `the input starts with "${text.trimStart()[0]}" but is not valid JSON (${reason}); it was read as one Markdown body`,
    ...(at ? { line: at.line, column: at.column } : {}),
    hint: 'fix the JSON syntax (e.g. remove a trailing comma) to read it as a comments thread',
  };
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0].slice(0, 120);
}
