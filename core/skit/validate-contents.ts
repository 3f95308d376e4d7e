import { closeSync, openSync, readFileSync, readSync, promises as fsp } from 'node:fs';
import { hasErrno } from '../errors/index.js';
import { contentNeed, HEAD_BYTES } from './capabilities.js';
import type { TreeFile } from './tree.js';
import type { ContentSource } from './validate-layout.js';

/**
 * Reads what the validation rules need from a walked tree: the full text of 'full' files
 * (README.md, SKILL.md, agent config files; see `contentNeed`) and the first HEAD_BYTES of every
 * other file, to spot `#!`. Nothing else is read, so validating a large SKIT stays cheap.
 */

/** Files read at once by the async reader; enough to keep the disk busy without exhausting file descriptors. */
const READ_CONCURRENCY = 64;

/**
 * The files whose contents validation needs. A 'full' file over the per-file quota is not read at
 * all (the quota error explains it); an exec-mode file is an executable whatever its first bytes.
 */
function wantedFiles(files: readonly TreeFile[], maxFileBytes: number): { file: TreeFile; need: 'full' | 'head' }[] {
  const wanted: { file: TreeFile; need: 'full' | 'head' }[] = [];
  for (const file of files) {
    if (file.size === 0) continue;
    const need = contentNeed(file.path);
    if (need === 'full' ? file.size <= maxFileBytes : file.mode !== 'exec') wanted.push({ file, need });
  }
  return wanted;
}

/** Reads the contents in parallel through the libuv thread pool (for servers: never blocks the event loop). */
export async function readValidationContents(files: readonly TreeFile[], maxFileBytes: number): Promise<Map<string, Uint8Array>> {
  const contents = new Map<string, Uint8Array>();
  const wanted = wantedFiles(files, maxFileBytes);
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const { file: f, need } = wanted[next++];
      try {
        contents.set(f.path, need === 'full' ? await fsp.readFile(f.abs) : await readHead(f.abs));
      } catch (e) {
        // a file removed between the walk and the read is simply not there any more
        if (!hasErrno(e, 'ENOENT')) throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, wanted.length) }, worker));
  return contents;
}

async function readHead(abs: string): Promise<Uint8Array> {
  const fh = await fsp.open(abs, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/**
 * The same contents read synchronously, for a command line that has nothing else to do meanwhile:
 * a few thousand small synchronous reads cost a fraction of the promise-per-file reader. Every
 * head lands in one shared slab, so there is one allocation instead of one per file.
 *
 * With `readHead` (undefined: the file is not there any more), heads are not read here but asked
 * for when a rule first needs one: `sf skit hash` gets them from its hashing, so the rules that
 * need no heads run while the hash workers read.
 */
export function readValidationContentsSync(files: readonly TreeFile[], maxFileBytes: number, readHead?: (file: TreeFile) => Uint8Array | undefined): ContentSource {
  const contents = new Map<string, Uint8Array>();
  const wanted = wantedFiles(files, maxFileBytes);
  const heads = readHead ? null : Buffer.allocUnsafe(wanted.length * HEAD_BYTES);
  const onDemand = new Map<string, TreeFile>();
  wanted.forEach(({ file: f, need }, i) => {
    try {
      if (need === 'full') contents.set(f.path, readFileSync(f.abs));
      else if (!heads) onDemand.set(f.path, f);
      else {
        const fd = openSync(f.abs, 'r');
        try {
          const bytesRead = readSync(fd, heads, i * HEAD_BYTES, HEAD_BYTES, 0);
          contents.set(f.path, heads.subarray(i * HEAD_BYTES, i * HEAD_BYTES + bytesRead));
        } finally {
          closeSync(fd);
        }
      }
    } catch (e) {
      // a file removed between the walk and the read is simply not there any more
      if (!hasErrno(e, 'ENOENT')) throw e;
    }
  });
  if (!readHead) return contents;
  return {
    get(path) {
      const pending = onDemand.get(path);
      if (pending) {
        onDemand.delete(path);
        const head = readHead(pending);
        if (head) contents.set(path, head);
      }
      return contents.get(path);
    },
  };
}
