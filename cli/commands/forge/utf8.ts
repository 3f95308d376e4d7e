import { isUtf8 } from 'node:buffer';
import type { Diagnostic } from '../../../core/errors/index.js';

/**
 * The warning for input that is not valid UTF-8: Node replaces each invalid sequence with U+FFFD,
 * so a tag or value could change without a trace. Names the first invalid byte and its line.
 */
export function utf8Diagnostics(bytes: Uint8Array, text: string): Diagnostic[] {
  if (isUtf8(bytes)) return [];
  let offset = 0;
  let line = 1;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    // a U+FFFD that is not the bytes EF BF BD stands for an invalid sequence
    if (cp === 0xfffd && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) break;
    if (cp === 0x0a) line++;
    offset += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return [
    {
      code: 'FORGE_INPUT_ENCODING',
      severity: 'warning',
      message: `the input is not valid UTF-8 (first invalid byte at offset ${offset}); invalid bytes were read as U+FFFD`,
      line,
      hint: 'save the input as UTF-8',
    },
  ];
}
