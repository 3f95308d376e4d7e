import { SfError, type ErrorCode } from '../errors/index.js';

/**
 * Makes an entry name safe to show in a terminal or a JSON report: control, bidi and other
 * invisible format characters become `\u{..}` escapes, and very long names are shortened.
 */
export function displayEntryName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const escaped = name.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\ufffd]/g, (c) =>
    `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
  return escaped.length > 300 ? `${escaped.slice(0, 300)}...` : escaped;
}

type ArchiveCode = Extract<ErrorCode, `SF_E_ARCHIVE_${string}`>;

/** An SfError about one archive entry: its (sanitized) name goes into `location.file`. */
export function entryError(
  code: ArchiveCode,
  entryName: string | undefined,
  message: string,
  hint: string,
  data: Record<string, unknown> = {},
): SfError {
  const shown = entryName === undefined ? undefined : displayEntryName(entryName);
  return new SfError(code, shown === undefined ? message : `${message}: "${shown}"`, {
    location: shown === undefined ? undefined : { file: shown },
    hint,
    data,
  });
}

/** Hint used for every refusal of a malformed archive. */
export const MALFORMED_HINT = 'the archive is corrupt, truncated or was written by a non-conforming tool; download or re-create it';
