import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { hasErrno } from '../../../core/errors/index.js';
import { fsyncDir, mkdirDurableSync } from '../../../core/fs/atomic.js';
import { readdirIfPresent } from '../../../core/fs/read-dir.js';
import type { BlobStore } from '../ports.js';

const HEX64 = /^[0-9a-f]{64}$/;
/** a put's temp file: `<sha256>.tmp-<random hex>` */
const TEMP = /^([0-9a-f]{64})\.tmp-[0-9a-f]+$/;

/**
 * Content-addressed blob directory: `<root>/<aa>/<sha256>`. Writes go to a temp file, are fsynced
 * and renamed into place, so a blob is either absent or complete; the directory is fsynced after
 * the rename, so a blob whose put resolved is still there after a power cut (a raw batch the hub
 * acknowledged, a release the registry published).
 */
export class BlobDir implements BlobStore {
  /** shard directories this process already created (a mkdir per put showed up in ingest profiles) */
  private readonly shards = new Set<string>();

  constructor(private readonly root: string) {}

  private pathFor(sha256: string): string {
    if (!HEX64.test(sha256)) throw new Error(`invalid blob key ${sha256}`);
    return join(this.root, sha256.slice(0, 2), sha256);
  }

  async put(bytes: Uint8Array, known?: string): Promise<string> {
    const sha256 = known ?? createHash('sha256').update(bytes).digest('hex');
    const target = this.pathFor(sha256);
    if (await this.has(sha256)) return sha256;
    const shard = sha256.slice(0, 2);
    if (!this.shards.has(shard)) {
      mkdirDurableSync(join(this.root, shard));
      this.shards.add(shard);
    }
    const tmp = `${target}.tmp-${randomBytes(6).toString('hex')}`;
    let fh;
    try {
      fh = await open(tmp, 'wx', 0o644);
    } catch (e) {
      if (!hasErrno(e, 'ENOENT')) throw e;
      // the shard directory was removed behind this process's back: create it again
      mkdirDurableSync(join(this.root, shard));
      fh = await open(tmp, 'wx', 0o644);
    }
    try {
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, target);
    } catch (e) {
      // a full disk must not leave temp files behind (best effort: the write's error is the one to report)
      await rm(tmp, { force: true }).catch(() => undefined);
      throw e;
    }
    await fsyncDir(join(this.root, shard));
    return sha256;
  }

  async get(sha256: string): Promise<Buffer | undefined> {
    if (!HEX64.test(sha256)) return undefined;
    try {
      return await readFile(this.pathFor(sha256));
    } catch (e) {
      if (hasErrno(e, 'ENOENT')) return undefined;
      throw e;
    }
  }

  async has(sha256: string): Promise<boolean> {
    if (!HEX64.test(sha256)) return false;
    try {
      await stat(this.pathFor(sha256));
      return true;
    } catch (e) {
      if (hasErrno(e, 'ENOENT')) return false;
      throw e;
    }
  }

  async delete(sha256: string): Promise<void> {
    await rm(this.pathFor(sha256), { force: true });
  }

  async *list(): AsyncIterable<{ sha256: string; size: number; mtimeMs: number }> {
    for await (const { name, path } of this.files()) {
      if (!HEX64.test(name)) continue;
      const st = await statIfPresent(path);
      if (st) yield { sha256: name, size: st.size, mtimeMs: st.mtimeMs };
    }
  }

  async *listTemp(): AsyncIterable<{ name: string; sha256: string; mtimeMs: number }> {
    for await (const { name, path } of this.files()) {
      const m = TEMP.exec(name);
      if (!m) continue;
      const st = await statIfPresent(path);
      if (st) yield { name, sha256: m[1], mtimeMs: st.mtimeMs };
    }
  }

  async deleteTemp(name: string): Promise<void> {
    const m = TEMP.exec(name);
    if (!m) throw new Error(`invalid temp file name ${name}`);
    await rm(join(this.root, m[1].slice(0, 2), name), { force: true });
  }

  /** every file of every shard, in name order (a shard or file removed meanwhile is skipped) */
  private async *files(): AsyncIterable<{ name: string; path: string }> {
    for (const shard of (await readdirIfPresent(this.root)).sort()) {
      for (const name of (await readdirIfPresent(join(this.root, shard))).sort()) yield { name, path: join(this.root, shard, name) };
    }
  }
}

async function statIfPresent(path: string) {
  try {
    return await stat(path);
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
}
