import assert from 'node:assert/strict';
import { runSf } from '../../../test-support/index.js';

/** CLI tests run dist/: build first with `npm run build`. */
const CONTEXT = '<!-- FORGE:CONTEXT -->\n## Implementation Context for #5\n\n### Known Pitfalls for This Area\nnone found in the time budget\n\n<!-- FORGE:CONTEXT:PARTIAL -->\n';

describe('sf forge: the time-limited sentinels of CONTEXT and ARCHITECT (spec 4.1, o02)', () => {
  it('check passes a CONTEXT ended by <!-- FORGE:CONTEXT:PARTIAL --> and says it is time-limited', async () => {
    const r = await runSf(['forge', 'check', '-', '--require', 'CONTEXT'], { input: CONTEXT });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), [
      'ok   FORGE:CONTEXT (1)',
      'context complete (time-limited: <!-- FORGE:CONTEXT:PARTIAL --> ended it at its time budget)',
      'labels: (not provided)',
      'result: PASS (1 required)',
    ]);
    const json = JSON.parse((await runSf(['forge', 'check', '-', '--require', 'CONTEXT', '--json'], { input: CONTEXT })).stdout);
    assert.deepEqual([json.entries[0].status, json.entries[0].completion, json.ok], ['complete', 'time-limited', true]);
  });

  it('parse shows it as complete (time-limited)', async () => {
    const r = await runSf(['forge', 'parse', '-'], { input: CONTEXT.replaceAll('CONTEXT', 'ARCHITECT').replace('Implementation Context', 'Implementation Plan') });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^FORGE:ARCHITECT +complete \(time-limited\) +comment 1, lines 1-7/m);
  });
});
