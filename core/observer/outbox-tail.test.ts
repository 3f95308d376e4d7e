import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { readOutboxFrom } from './outbox-tail.js';

const record = (i: number, pad = 0) => JSON.stringify({ event_id: `ev-${i}`, event_name: 'agent.skill.inventory.changed', skills: [], pad: 'x'.repeat(pad) });

/** The outbox tail reads a backlog in bounded chunks of whole lines (a real file). */
describe('outbox tail: chunked reads', () => {
  it('reads whole lines per chunk, each record once and in order; a longer record is read whole; a torn last line waits', async () => {
    const tmp = await tempDir();
    try {
      const file = join(tmp.path, 'outbox.jsonl');
      // 300 records of ~100 bytes, one of 5,000 bytes in the middle, then a line still being appended
      const lines = Array.from({ length: 300 }, (_, i) => record(i, i === 150 ? 5000 : 20));
      await writeFile(file, lines.join('\n') + '\n' + '{"event_id":"torn');
      const ids: string[] = [];
      const reads: number[] = [];
      let offset = 0;
      for (;;) {
        const r = await readOutboxFrom(file, offset, 1024);
        if (r.offset === offset) break;
        reads.push(r.offset - offset);
        ids.push(...r.events.map((e) => e.event_id));
        offset = r.offset;
      }
      assert.deepEqual(ids, lines.map((_, i) => `ev-${i}`));
      assert.equal(offset, Buffer.byteLength(lines.join('\n') + '\n'), 'the torn line is not consumed');
      assert.ok(reads.length > 20, `${reads.length} reads`);
      assert.ok(reads.filter((n) => n > 1024).length === 1, 'only the read holding the long record is over the chunk');
    } finally {
      await tmp.cleanup();
    }
  });
});
