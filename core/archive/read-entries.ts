import type { ModeClass } from '../skit/tree.js';
import { readArchive, type ArchiveInput } from './read.js';
import { stripWrapper, wrapperToStrip } from './strip.js';
import type { AcceptedEntry, ArchiveFormat, EntrySink } from './types.js';
import type { UnpackOptions } from './unpack.js';

export interface ArchiveFileEntry {
  path: string;
  mode: ModeClass;
  size: number;
  data: Buffer;
}

export interface ArchiveContents {
  format: ArchiveFormat;
  /** files in archive order, with their bytes */
  files: ArchiveFileEntry[];
  /** explicit directory entries (after stripping), for completeness */
  directories: string[];
  stripped: string | null;
}

class MemorySink implements EntrySink {
  readonly data = new Map<string, Buffer>();

  async directory(): Promise<void> {
    // directories are listed from the accepted entries; there is nothing to store
  }

  async file(entry: AcceptedEntry, data: AsyncIterable<Buffer>): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of data) chunks.push(chunk);
    this.data.set(entry.path, Buffer.concat(chunks));
  }
}

/**
 * Reads an archive fully into memory with exactly the checks of `unpackArchive` (same policy,
 * same limits, which also bound the memory used). For inspecting uploads without touching disk.
 */
export async function readArchiveEntries(input: ArchiveInput, options: UnpackOptions = {}): Promise<ArchiveContents> {
  const sink = new MemorySink();
  const { format, entries } = await readArchive(input, sink, options);
  const wrapper = wrapperToStrip(entries, options.strip ?? 0);
  const files: ArchiveFileEntry[] = [];
  const directories: string[] = [];
  for (const e of entries) {
    const path = stripWrapper(e.path, wrapper);
    if (e.kind === 'file') files.push({ path, mode: e.mode, size: e.size, data: sink.data.get(e.path)! });
    else if (path !== '') directories.push(path);
  }
  return { format, files, directories, stripped: wrapper };
}
