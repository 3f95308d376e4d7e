/**
 * The one registry of Forge error codes. Every `SfError` carries one of these codes; the CLI maps
 * a code to its exit code and the hub maps it to an HTTP status from this table and nowhere else.
 * What each exit code means is EXIT_CODES; docs/errors.md is generated from both (`npm run gen`).
 */
export interface ErrorCodeInfo {
  exit: number;
  http: number;
  summary: string;
}

/** The CLI's exit codes, by number: what a script may conclude from one. */
export const EXIT_CODES: Readonly<Record<number, string>> = {
  0: 'success',
  1: 'the input is invalid (validation failed, or a check found problems)',
  2: 'usage error: the command line or request is malformed',
  3: 'not found',
  4: 'conflict with existing state',
  5: 'unsafe input refused',
  6: 'a size, count or space limit was exceeded',
  7: 'network or remote failure (often worth retrying)',
  8: 'authentication or permission',
  10: 'internal error, or a failed system call (SF_E_IO)',
};

const E = (exit: number, http: number, summary: string): ErrorCodeInfo => ({ exit, http, summary });

export const ERROR_CODES = {
  // generic
  SF_E_INTERNAL: E(10, 500, 'An unexpected internal error; please report it.'),
  SF_E_USAGE: E(2, 400, 'The command line or request is malformed.'),
  SF_E_NOT_FOUND: E(3, 404, 'The requested file, SKIT, release or record does not exist.'),
  SF_E_CONFLICT: E(4, 409, 'The operation conflicts with existing state.'),
  SF_E_IO: E(10, 500, 'A filesystem operation failed.'),
  SF_E_DISK_FULL: E(6, 503, 'The disk or quota is full; free space and retry.'),
  SF_E_LIMIT: E(6, 413, 'A configured size or count limit was exceeded.'),

  // SKIT descriptor and validation
  SF_E_VALIDATION: E(1, 422, 'The SKIT or skill failed validation; see the diagnostics.'),
  SF_E_FRONTMATTER: E(1, 422, 'YAML frontmatter is missing, unclosed or not valid YAML.'),
  SF_E_UNSAFE_PATH: E(5, 422, 'A path is absolute, traverses upward or is otherwise unsafe.'),
  SF_E_PATH_COLLISION: E(5, 422, 'Two paths collide after case folding or Unicode normalization.'),

  // archives
  SF_E_ARCHIVE_UNSAFE: E(5, 422, 'An archive entry is unsafe (traversal, link, device, setuid, ...).'),
  SF_E_ARCHIVE_MALFORMED: E(5, 422, 'An archive is malformed or truncated.'),
  SF_E_ARCHIVE_LIMIT: E(6, 413, 'An archive exceeds an entry count, size or compression-ratio limit.'),
  SF_E_ARCHIVE_FORMAT: E(2, 415, 'The archive format is not supported (use .tar, .tar.gz, .tgz or .zip).'),

  // sources, library, install
  SF_E_SOURCE: E(2, 400, 'The source string could not be resolved to a SKIT.'),
  SF_E_FETCH: E(7, 502, 'Fetching a remote source failed.'),
  SF_E_GIT: E(7, 502, 'A git operation failed.'),
  SF_E_LIBRARY: E(10, 500, 'The canonical library is unreadable or inconsistent.'),
  SF_E_NOT_INSTALLED: E(3, 404, 'The SKIT or skill is not installed.'),
  SF_E_MODIFIED: E(4, 409, 'Installed files were modified locally; refusing to overwrite them.'),
  SF_E_NAME_COLLISION: E(4, 409, 'A skill with the same name exists and is not managed by Forge.'),
  SF_E_UNKNOWN_AGENT: E(2, 400, 'The agent name is not known.'),
  SF_E_CONFIG: E(1, 422, 'A host configuration file could not be parsed or merged.'),
  SF_E_HASH_MISMATCH: E(5, 422, 'Content does not match its recorded hash.'),
  SF_E_NETWORK_FILESYSTEM: E(5, 500, 'A database directory is on a network filesystem, where LMDB can be corrupted.'),

  // hub and auth
  SF_E_AUTH: E(8, 401, 'Authentication is missing or invalid.'),
  SF_E_FORBIDDEN: E(8, 403, 'The credential lacks the required scope or permission.'),
  SF_E_IMMUTABLE: E(4, 409, 'Releases are immutable; this version already exists.'),
  SF_E_RATE_LIMIT: E(7, 429, 'Too many requests; retry later.'),
  SF_E_UNAVAILABLE: E(7, 503, 'The service is overloaded or unavailable; retry later.'),
  SF_E_MEDIA_TYPE: E(2, 415, 'The request content type is not supported.'),
  SF_E_QUARANTINED: E(5, 410, 'The SKIT or release is quarantined; see its replacement guidance.'),

  // telemetry
  SF_E_OTLP_DECODE: E(1, 400, 'An OTLP payload could not be decoded.'),
  SF_E_TELEMETRY_EVENT: E(1, 422, 'A telemetry event breaks the semantic convention (missing, unknown or mistyped attribute).'),

  // FORGE annotation protocol
  SF_E_ANNOTATION: E(1, 422, 'A FORGE annotation is malformed or incomplete.'),
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Exit code for a CLI process that failed with `code`. */
export function exitCodeFor(code: ErrorCode): number {
  return ERROR_CODES[code]?.exit ?? 10;
}

/**
 * Exit code for a command that acts on several things and failed for some of them (`sf skit
 * update` of a whole scope): the highest exit code of the failures, whatever their number, so a
 * failure exits the same whether it is alone or among others; 0 when nothing failed.
 */
export function exitCodeForFailures(codes: readonly ErrorCode[]): number {
  return Math.max(0, ...codes.map(exitCodeFor));
}

/** HTTP status for a hub response that failed with `code`. */
export function httpStatusFor(code: ErrorCode): number {
  return ERROR_CODES[code]?.http ?? 500;
}
