import { readFile } from 'node:fs/promises';
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

async function readBytes(path: string, what: string): Promise<Buffer> {
  if (path === '-') {
    if (process.stdin.isTTY) throw new SfError('SF_E_USAGE', `no ${what} on stdin`, { hint: `pipe the ${what} in, or pass a file path` });
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks);
  }
  try {
    return await readFile(path);
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
