import { readFile } from 'node:fs/promises';
import { SfError, hasErrno } from '../../../core/errors/index.js';

/** Reads a file, or stdin for `-`. */
export async function readInput(path: string, what: string): Promise<string> {
  if (path === '-') {
    if (process.stdin.isTTY) throw new SfError('SF_E_USAGE', `no ${what} on stdin`, { hint: `pipe the ${what} in, or pass a file path` });
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(path, 'utf8');
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
