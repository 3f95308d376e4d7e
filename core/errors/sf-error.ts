import type { ErrorCode } from './codes.js';

/** Where a problem was found: a file (relative to the SKIT root or absolute) and, when known, a position. */
export interface ErrorLocation {
  file?: string;
  line?: number;
  column?: number;
  /** a JSON pointer or dotted path inside a structured document, e.g. `skills[1].path` */
  pointer?: string;
}

export interface SfErrorOptions {
  location?: ErrorLocation;
  hint?: string;
  data?: Record<string, unknown>;
  cause?: unknown;
}

/** Marks SfError instances across module copies (see SfError[Symbol.hasInstance]). */
const SF_ERROR = Symbol.for('forge.sf-error');

/**
 * The base of every user-facing Forge error: a stable `code`, a message that says what was wrong,
 * the offending location, and a hint that says how to fix it. Not meant to be subclassed (the
 * instanceof check below recognizes every SfError, whatever its class).
 *
 * @example throw new SfError('SF_E_UNSAFE_PATH', 'path "../x" leaves the SKIT root', { hint: 'use a path inside the SKIT', location: { file: 'README.md' } })
 */
export class SfError extends Error {
  /**
   * `instanceof SfError` holds for an SfError made by any copy of this module: code reached through
   * a dynamic import() can be a second module instance (CommonJS and ES module copies under a
   * loader such as tsx), and its errors must not stop being recognized.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [SF_ERROR]?: unknown })[SF_ERROR] === true;
  }

  override readonly name = 'SfError';
  private readonly [SF_ERROR] = true;
  readonly code: ErrorCode;
  readonly location?: ErrorLocation;
  readonly hint?: string;
  readonly data?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: SfErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.location = options.location;
    this.hint = options.hint;
    this.data = options.data;
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      ...(this.location ? { location: this.location } : {}),
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.data ? { data: this.data } : {}),
    };
  }
}

/** True when `err` is an SfError, optionally with the given code. */
export function isSfError(err: unknown, code?: ErrorCode): err is SfError {
  return err instanceof SfError && (code === undefined || err.code === code);
}

/** True when `err` is a Node system error with the given errno code (ENOENT, EEXIST, ...). */
export function hasErrno(err: unknown, code: string): err is NodeJS.ErrnoException {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}
