import { entryError, MALFORMED_HINT } from './archive-error.js';
import type { ArchiveLimits } from './limits.js';

/**
 * Parses a pax extended header ("<len> <key>=<value>\n" records) strictly: a record whose length
 * does not match, or that lacks "=", makes the whole archive malformed.
 */
export function parsePaxRecords(buf: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < buf.length) {
    if (buf[at] === 0) break; // NUL padding after the last record
    const space = buf.indexOf(0x20, at);
    const len = space > at ? Number(buf.toString('latin1', at, space)) : NaN;
    const end = at + len;
    if (!Number.isInteger(len) || len <= space - at + 1 || end > buf.length || buf[end - 1] !== 0x0a) {
      throw entryError('SF_E_ARCHIVE_MALFORMED', undefined, 'a pax extended header has a malformed record', MALFORMED_HINT);
    }
    const record = buf.toString('utf8', space + 1, end - 1);
    const eq = record.indexOf('=');
    if (eq <= 0) throw entryError('SF_E_ARCHIVE_MALFORMED', undefined, 'a pax extended header record has no key', MALFORMED_HINT);
    records.set(record.slice(0, eq), record.slice(eq + 1));
    at = end;
  }
  return records;
}

/** pax keys we refuse: they change how many bytes belong to an entry, which parsers disagree on. */
const SIZE_KEYS = (key: string) => key === 'size' || key.startsWith('GNU.sparse');

/**
 * Watches the extension headers (pax, pax global, GNU long name / long link) that tar-stream
 * consumes before an entry, and refuses the combinations that let two tar implementations see
 * different files in one archive: pax `size` overrides and sparse maps, a global pax `path`,
 * `linkpath` or `size`, two extension headers of one kind for one entry, and a pax path together
 * with a GNU long name. It also reports where an entry's name came from and how many bytes of
 * extension headers preceded it, so the reader can check entries are contiguous.
 */
export class ExtensionAudit {
  private pax: Map<string, string> | null = null;
  private gnuPath = false;
  private gnuLink = false;
  private bytes = 0;

  constructor(private readonly limits: ArchiveLimits) {}

  onExtension(type: string, size: number, buf: Buffer): void {
    if (size > this.limits.maxExtensionHeaderBytes) {
      throw entryError('SF_E_ARCHIVE_LIMIT', undefined, `a ${type} extension header is ${size} bytes, over the ${this.limits.maxExtensionHeaderBytes}-byte limit`,
        'entry names and attributes this large are not used by real SKITs', { limit: 'maxExtensionHeaderBytes' });
    }
    this.bytes += 512 + Math.ceil(size / 512) * 512;
    const ambiguous = (what: string) =>
      entryError('SF_E_ARCHIVE_UNSAFE', undefined, `an entry has ${what}; tar implementations disagree on which wins`,
        're-create the archive with one tar tool in POSIX (pax) format', { problem: 'ambiguous-extension' });
    switch (type) {
      case 'pax-global-header': {
        const keys = [...parsePaxRecords(buf).keys()].filter((k) => k === 'path' || k === 'linkpath' || SIZE_KEYS(k));
        if (keys.length > 0) {
          throw entryError('SF_E_ARCHIVE_UNSAFE', undefined, `a global pax header sets "${keys[0]}" for every entry`,
            'remove global path/size overrides; per-entry pax headers are fine', { problem: 'pax-global-override', key: keys[0] });
        }
        return;
      }
      case 'pax-header': {
        if (this.pax) throw ambiguous('two pax extended headers');
        const records = parsePaxRecords(buf);
        const sizeKey = [...records.keys()].find(SIZE_KEYS);
        if (sizeKey !== undefined) {
          throw entryError('SF_E_ARCHIVE_UNSAFE', undefined, `a pax header overrides the entry size ("${sizeKey}")`,
            'size overrides and sparse files are not accepted (they are used to smuggle files past scanners)', { problem: 'pax-size', key: sizeKey });
        }
        if (this.gnuPath && records.has('path')) throw ambiguous('both a GNU long name and a pax path');
        if (this.gnuLink && records.has('linkpath')) throw ambiguous('both a GNU long link name and a pax linkpath');
        this.pax = records;
        return;
      }
      case 'gnu-long-path':
        if (this.gnuPath) throw ambiguous('two GNU long names');
        if (this.pax?.has('path')) throw ambiguous('both a pax path and a GNU long name');
        this.gnuPath = true;
        return;
      case 'gnu-long-link-path':
        if (this.gnuLink) throw ambiguous('two GNU long link names');
        if (this.pax?.has('linkpath')) throw ambiguous('both a pax linkpath and a GNU long link name');
        this.gnuLink = true;
        return;
    }
  }

  /** Hands over what preceded the entry tar-stream just emitted, and resets for the next one. */
  take(): { nameSource?: string; extensionBytes: number } {
    const nameSource = this.pax?.has('path') ? 'a pax "path" record' : this.gnuPath ? 'a GNU long name' : undefined;
    const extensionBytes = this.bytes;
    this.pax = null;
    this.gnuPath = false;
    this.gnuLink = false;
    this.bytes = 0;
    return { nameSource, extensionBytes };
  }

  /** Extension headers at the very end, with no entry after them, are malformed. */
  assertNonePending(): void {
    if (this.bytes > 0) {
      throw entryError('SF_E_ARCHIVE_MALFORMED', undefined, 'the archive ends with an extension header that belongs to no entry', MALFORMED_HINT);
    }
  }
}
