import { extract as createExtract, type Extract, type Header } from 'tar-stream';
import { SfError } from '../errors/index.js';
import { entryError, MALFORMED_HINT } from './archive-error.js';
import type { EntryPolicy } from './entry-policy.js';
import { maxTarStreamBytes } from './limits.js';
import { ExtensionAudit } from './tar-extensions.js';
import type { AcceptedEntry, EntryKind, EntrySink } from './types.js';

const KINDS: Record<string, EntryKind> = {
  file: 'file',
  'contiguous-file': 'other',
  directory: 'directory',
  symlink: 'symlink',
  link: 'hardlink',
  'character-device': 'character-device',
  'block-device': 'block-device',
  fifo: 'fifo',
};

/** tar-stream's private hook for extension headers (pinned tar-stream 3.2.x). */
interface ExtractInternals {
  _decodeLongHeader?: (buf: Buffer) => void;
  _header?: { type: string; size: number };
}

const roundUp = (n: number) => Math.ceil(n / 512) * 512;

function auditedExtract(audit: ExtensionAudit): Extract {
  const extract = createExtract() as Extract & ExtractInternals;
  const decode = extract._decodeLongHeader;
  if (typeof decode !== 'function') {
    throw new SfError('SF_E_INTERNAL', 'the installed tar-stream no longer exposes extension headers to the archive auditor', {
      hint: 'pin tar-stream to the version in package.json',
    });
  }
  // runs inside tar-stream's try/catch, so a refusal becomes the stream's error
  extract._decodeLongHeader = function (this: ExtractInternals, buf: Buffer) {
    audit.onExtension(this._header?.type ?? 'unknown', this._header?.size ?? buf.length, buf);
    decode.call(this, buf);
  };
  return extract;
}

function waitForDrain(extract: Extract): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      extract.off('drain', done);
      extract.off('close', done);
      resolve();
    };
    extract.on('drain', done);
    extract.on('close', done);
  });
}

/**
 * Reads an uncompressed tar stream with tar-stream and passes every entry through `policy` before
 * `sink` sees it. Besides tar-stream's own checks (header checksums, truncation) it requires that
 * entries follow each other with no unexplained blocks in between (so nothing hides after an
 * end-of-archive marker), that the archive ends with a zero block, and that the raw stream stays
 * under `maxTarStreamBytes`.
 */
export async function readTar(source: AsyncIterable<Buffer>, policy: EntryPolicy, sink: EntrySink): Promise<AcceptedEntry[]> {
  const audit = new ExtensionAudit(policy.limits);
  const extract = auditedExtract(audit);
  const rawLimit = maxTarStreamBytes(policy.limits);
  const accepted: AcceptedEntry[] = [];
  let rawBytes = 0;
  let nextOffset = 0;
  let failure: unknown;
  // tar-stream's own error explains more than the "Stream was destroyed" an entry stream then sees
  let parserError: unknown;
  extract.on('error', (e: unknown) => {
    parserError ??= e;
  });
  const fail = (e: unknown) => {
    failure ??= e instanceof SfError || parserError === undefined ? e : parserError;
    extract.destroy(e as Error);
  };

  const feeding = (async () => {
    try {
      for await (const chunk of source) {
        if (extract.destroyed || failure !== undefined) return;
        rawBytes += chunk.length;
        if (rawBytes > rawLimit) {
          throw entryError('SF_E_ARCHIVE_LIMIT', undefined, `the tar stream is longer than ${rawLimit} bytes`,
            'this looks like a decompression bomb or padding attack; raise limits.maxTotalSize only if you trust the source', { limit: 'maxTotalSize' });
        }
        if (!extract.write(chunk)) await waitForDrain(extract);
      }
      extract.end(null);
    } catch (e) {
      fail(e);
    }
  })();

  try {
    for await (const stream of extract) {
      const header: Header = stream.header;
      const { nameSource, extensionBytes } = audit.take();
      if (stream.offset !== nextOffset + extensionBytes) {
        throw entryError('SF_E_ARCHIVE_MALFORMED', header.name, 'unexpected blocks before entry (data after an end-of-archive marker, or a stray extension header)',
          MALFORMED_HINT, { offset: stream.offset, expected: nextOffset + extensionBytes });
      }
      nextOffset = stream.offset + 512 + roundUp(header.size);
      const entry = policy.admit({
        name: header.name,
        kind: KINDS[header.type ?? ''] ?? 'other',
        mode: header.mode ?? 0,
        size: header.size,
        linkTarget: header.linkname ?? undefined,
        nameSource,
      });
      if (entry === null || entry.kind === 'directory') {
        if (entry) {
          accepted.push(entry);
          await sink.directory(entry);
        }
        for await (const chunk of stream) void chunk; // directories carry no data (checked by the policy)
      } else {
        accepted.push(entry);
        await sink.file(entry, policy.meter(entry, stream as AsyncIterable<Buffer>));
      }
    }
  } catch (e) {
    fail(e);
  }
  await feeding;
  if (failure !== undefined) throw failure;

  audit.assertNonePending();
  if (rawBytes - nextOffset < 512) {
    throw entryError('SF_E_ARCHIVE_MALFORMED', undefined, 'the tar archive has no end-of-archive marker (it is truncated)', MALFORMED_HINT);
  }
  return accepted;
}
