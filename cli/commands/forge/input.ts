import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { SfError, hasErrno, type Diagnostic } from '../../../core/errors/index.js';
import { utf8Diagnostics } from './utf8.js';

/** Reads a file, or stdin for `-`, as UTF-8. */
export async function readInput(path: string, what: string): Promise<string> {
  return (await readBytes(path, what)).toString('utf8');
}

/** Like readInput, with a warning when the bytes are not valid UTF-8 (parse and check report it). */
export async function readInputChecked(path: string, what: string): Promise<{ text: string; diagnostics: Diagnostic[] }> {
  const bytes = await readBytes(path, what);
  const text = bytes.toString('utf8');
  return { text, diagnostics: utf8Diagnostics(bytes, text) };
}

/** `(stdin)` or the path: what a diagnostic of the input itself, or of a Markdown body, is about. */
export function inputSubject(path: string): string {
  return path === '-' ? '(stdin)' : path;
}

/**
 * The most a forge command reads from a file or stdin, as `sf forge fetch` reads per response: a
 * long thread is a few MB, and input past V8's string limit ended in an internal error after
 * buffering all of it.
 */
export const MAX_INPUT_BYTES = 32 * 1024 * 1024;

function tooLarge(path: string, what: string): SfError {
  const shown = path === '-' ? `the input on stdin (${what})` : `${what} file ${path}`;
  return new SfError('SF_E_LIMIT', `${shown} is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MiB, the most a forge command reads`, {
    ...(path === '-' ? {} : { location: { file: path } }),
    hint: `pass a smaller ${what} input: split the thread, or keep only the comments that carry annotations`,
    data: { limit: MAX_INPUT_BYTES },
  });
}

/** The bytes of `stream`, refusing as soon as they pass the cap rather than after buffering them. */
async function readCapped(stream: AsyncIterable<unknown>, path: string, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    total += bytes.length;
    if (total > MAX_INPUT_BYTES) throw tooLarge(path, what);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, total);
}

async function readBytes(path: string, what: string): Promise<Buffer> {
  if (path === '-') {
    if (process.stdin.isTTY) throw new SfError('SF_E_USAGE', `no ${what} on stdin`, { hint: `pipe the ${what} in, or pass a file path` });
    return readCapped(process.stdin, path, what);
  }
  try {
    // a regular file says its size: refuse before reading a byte (a FIFO or device is capped while read)
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
    if (info.isFile() && info.size > MAX_INPUT_BYTES) throw tooLarge(path, what);
    return await readCapped(createReadStream(path), path, what);
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) throw new SfError('SF_E_NOT_FOUND', `${what} file ${path} does not exist`, { location: { file: path }, hint: 'check the path' });
    if (hasErrno(e, 'EISDIR')) throw new SfError('SF_E_USAGE', `${path} is a directory, not a ${what} file`, { location: { file: path }, hint: 'pass a file path' });
    throw e;
  }
}

/** Reads and parses a JSON file (or stdin for `-`), with the position of a syntax error. */
export async function readJson(path: string, what: string): Promise<unknown> {
  const text = await readInput(path, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new SfError('SF_E_USAGE', `${what} ${path === '-' ? '(stdin)' : path} is not valid JSON: ${(e as Error).message}`, {
      location: { file: path },
      hint: `fix the JSON syntax of the ${what}`,
      cause: e,
    });
  }
}
