import * as fs from 'node:fs';
import { join } from 'node:path';
import { SfError } from '../errors/index.js';
import type { CheckoutTally } from './checkout-budget.js';
import { ObjectSizes } from './git-object-size.js';

type IsoGit = typeof import('isomorphic-git');

export interface TreeWalkOptions {
  /** the credential-free source, for messages */
  shown: string;
  /** the clone's deadline: the walk stops when it fires */
  signal?: AbortSignal;
  /** isomorphic-git's object cache, shared with the checkout that follows (the pack is read once) */
  cache: object;
}

/** A tree still to be read, with what is needed to name it in a message. */
interface Pending {
  oid: string;
  name: string;
  parent: Pending | undefined;
  /** path segments of the tree itself (0 for the root) */
  depth: number;
}

interface RawEntry {
  type: 'tree' | 'blob' | 'commit';
  name: string;
  oid: string;
}

/**
 * Counts the tree of `ref` in a clone that is not checked out yet against the checkout budget,
 * and stops at the first entry over it (SF_E_LIMIT), as the system git's `ls-tree` listing does
 * for file:// and ssh. The walk is sequential and depth-first, with an explicit stack: a "git
 * bomb" of trees naming one another is refused after reading about as many entries as the budget
 * allows, in memory bounded by them. Every entry counts (files, symlinks, submodules and
 * directories: a bomb of empty trees has no files), blob bytes from the object headers
 * (git-object-size.ts), and no path may be deeper than the budget.
 *
 * Trees are read raw and refused (SF_E_UNSAFE_PATH, nothing installed) where `git fsck`, which
 * the system git runs on every object it receives, refuses them: an entry named twice
 * (duplicateEntries: isomorphic-git would keep one and drop the other), entries out of git order
 * (treeNotSorted), unsafe names, unknown modes. A name that is not UTF-8 is refused too:
 * isomorphic-git would write it under another name.
 */
export async function walkCheckoutTree(git: IsoGit, dir: string, ref: string, tally: CheckoutTally, options: TreeWalkOptions): Promise<void> {
  const { cache, signal } = options;
  const start = await git.resolveRef({ fs, dir, ref });
  // peels an annotated tag and a commit to the root tree
  const root = (await git.readTree({ fs, dir, oid: start, cache })).oid;
  const sizes = new ObjectSizes(join(dir, '.git'));
  // a bomb names the same few trees and blobs over and over: each is read and checked once
  const trees = new Map<string, RawEntry[]>();
  const blobSizes = new Map<string, number>();
  const blobSize = (oid: string): number => {
    let size = blobSizes.get(oid);
    if (size === undefined) blobSizes.set(oid, (size = sizes.size(oid) ?? 0));
    return size;
  };
  try {
    const stack: Pending[] = [{ oid: root, name: '', parent: undefined, depth: 0 }];
    while (stack.length > 0) {
      signal?.throwIfAborted();
      const tree = stack.pop()!;
      let entries = trees.get(tree.oid);
      if (!entries) {
        const { type, object } = await git.readObject({ fs, dir, oid: tree.oid, format: 'content', cache });
        if (type !== 'tree') throw unsafeEntry(options.shown, 'badTree', `"${pathOf(tree)}" is a ${type}, not a tree`);
        trees.set(tree.oid, (entries = parseTree(Buffer.from(object as Uint8Array), () => pathOf(tree), options.shown)));
      }
      const children: Pending[] = [];
      for (const entry of entries) {
        tally.assertDepth(tree.depth + 1, () => join(pathOf(tree), entry.name));
        tally.add(entry.type === 'blob' ? blobSize(entry.oid) : 0);
        if (entry.type === 'tree') children.push({ oid: entry.oid, name: entry.name, parent: tree, depth: tree.depth + 1 });
      }
      // depth-first in tree order
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  } finally {
    sizes.close();
  }
}

function pathOf(tree: Pending): string {
  const names: string[] = [];
  for (let t: Pending | undefined = tree; t?.parent; t = t.parent) names.push(t.name);
  return names.reverse().join('/') || '.';
}

const MODES: Record<string, RawEntry['type']> = {
  '40000': 'tree',
  '040000': 'tree',
  '100644': 'blob',
  '100755': 'blob',
  '120000': 'blob',
  '160000': 'commit',
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The entries of a raw tree object, in the order stored, each checked (see walkCheckoutTree). */
function parseTree(raw: Buffer, where: () => string, shown: string): RawEntry[] {
  const entries: RawEntry[] = [];
  const seen = new Set<string>();
  let previous: Buffer | undefined;
  const at = (name: string) => (where() === '.' ? name : `${where()}/${name}`);
  for (let pos = 0; pos < raw.length; ) {
    const space = raw.indexOf(0x20, pos);
    const nul = space === -1 ? -1 : raw.indexOf(0, space + 1);
    if (nul === -1 || nul + 21 > raw.length) throw unsafeEntry(shown, 'badTree', `the tree of "${where()}" cannot be parsed`);
    const mode = raw.toString('latin1', pos, space);
    const nameBytes = raw.subarray(space + 1, nul);
    const oid = raw.toString('hex', nul + 1, nul + 21);
    pos = nul + 21;
    let name: string;
    try {
      name = utf8.decode(nameBytes);
    } catch {
      throw unsafeEntry(shown, 'badEncoding', `"${at(nameBytes.toString('latin1'))}" is not valid UTF-8`);
    }
    const type = MODES[mode];
    if (type === undefined) throw unsafeEntry(shown, 'badFilemode', `"${at(name)}" has mode ${mode}`);
    const problem = unsafeName(name);
    if (problem) throw unsafeEntry(shown, problem[0], `"${at(name)}" ${problem[1]}`);
    if (seen.has(name)) throw unsafeEntry(shown, 'duplicateEntries', `"${at(name)}" is named twice in one tree`);
    seen.add(name);
    // git order: byte order of the names, a tree's name read as if it ended with "/"
    const key = type === 'tree' ? Buffer.concat([nameBytes, Buffer.from('/')]) : nameBytes;
    if (previous !== undefined && Buffer.compare(previous, key) >= 0) throw unsafeEntry(shown, 'treeNotSorted', `the entries of "${where()}" are not in git order`);
    previous = key;
    entries.push({ type, name, oid });
  }
  return entries;
}

/**
 * What is wrong with a tree entry name, as git's verify_path and isomorphic-git's tree parser
 * see it: empty, "." or "..", a path separator, or a spelling of ".git" on some filesystem
 * (case, trailing dots and spaces, NTFS streams and 8.3 names, HFS+ ignorable characters).
 */
function unsafeName(name: string): [string, string] | undefined {
  if (name === '') return ['emptyName', 'is empty'];
  if (name === '.') return ['hasDot', 'is "."'];
  if (name === '..') return ['hasDotdot', 'is ".."'];
  if (name.includes('/') || name.includes('\\')) return ['fullPathname', 'holds a path separator'];
  const hfs = name.replace(/[\u200C-\u200F\u202A-\u202E\u206A-\u206F\uFEFF]/g, '');
  const ntfs = hfs.split(':')[0];
  const folded = trimDotsAndSpaces(ntfs.toLowerCase());
  if (folded === '' && ntfs !== '') return ['hasDotdot', 'is only dots and spaces, which Windows reads as "." or ".."'];
  if (folded === '.git' || /^\.?git~[1-9]$/.test(folded)) return ['hasDotgit', 'is another spelling of ".git"'];
  return undefined;
}

/** Drops trailing dots and spaces, scanning backwards (a regex would be quadratic on a long run of dots). */
function trimDotsAndSpaces(s: string): string {
  let end = s.length;
  while (end > 0 && (s.charCodeAt(end - 1) === 0x2e || s.charCodeAt(end - 1) === 0x20)) end--;
  return s.slice(0, end);
}

/** The hint of every unsafe-tree refusal, over either transport. */
export const UNSAFE_TREE_HINT =
  'a repository whose trees name "..", ".git", paths with "/" in one entry, or one name twice cannot be installed; use another ref or fix the repository';

/** The refusal of an unsafe tree, worded as the system-git transport words fsck's. */
export function unsafeEntry(shown: string, id: string, detail: string): SfError {
  return new SfError('SF_E_UNSAFE_PATH', `${shown} contains an unsafe tree entry (${id}: ${detail}); nothing was installed`, {
    hint: UNSAFE_TREE_HINT,
    data: { url: shown, problem: id },
  });
}
