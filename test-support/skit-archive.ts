import { packTree } from '../core/archive/index.js';
import { hashSkit, type SkitHashes } from '../core/skit/hash.js';
import { scaffoldSkit } from '../core/skit/scaffold.js';
import { walkTree } from '../core/skit/tree.js';
import { validateSkitDir } from '../core/skit/validate.js';
import { tempDir, writeTree, type FixtureTree } from './index.js';

/** A SKIT tree written to a temp dir, packed deterministically and hashed on the client side. */
export interface PackedSkit {
  dir: string;
  archive: Buffer;
  /** client-side hashes (undefined when the tree does not validate) */
  hashes?: SkitHashes;
  cleanup(): Promise<void>;
}

/** The two-skill SKIT `sf skit init` writes, with extra or replaced files. */
export function twoSkillTree(id: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...scaffoldSkit({ id }), ...extra };
}

/** Writes `tree` to `<tmp>/<dirName>`, packs every file, and hashes it when it validates. */
export async function packSkit(tree: FixtureTree, dirName = 'kit'): Promise<PackedSkit> {
  const tmp = await tempDir('sf-hub-skit-');
  const dir = `${tmp.path}/${dirName}`;
  await writeTree(dir, tree);
  const { files } = await walkTree(dir);
  const archive = await packTree(dir, files);
  const result = await validateSkitDir(dir);
  const hashes = result.ok && result.layout ? await hashSkit(dir, result.layout) : undefined;
  return { dir, archive, hashes, cleanup: tmp.cleanup };
}
