import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixturesDir } from '../../test-support/index.js';
import { deliver, GOLDEN_FIXTURES, GOLDEN_RECEIPT_MS, loadOtlpFixture, projectionSnapshot, setUpAccount } from '../test-support/otlp-fixtures.js';
import { telemetryFixture } from '../test-support/telemetry-fixture.js';

/**
 * The golden OTLP fixtures (spec "Cardinality, sampling, and governance"): each is delivered to an
 * in-process hub over real LMDB, normalized, and every projection row is compared with
 * fixtures/otlp/<name>.expected.json. `UPDATE_GOLDEN=1` rewrites the expected files (review the
 * diff: they are the contract).
 */
describe('hub golden OTLP fixtures', () => {
  for (const name of GOLDEN_FIXTURES) {
    it(`${name}: exact responses and projection rows`, async () => {
      // a fixed receipt clock: events without a plausible source time are placed at receipt
      const f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
      try {
        const fx = await loadOtlpFixture(name);
        const user = f.user('golden');
        const repos = await setUpAccount(f, user, fx);
        const responses = await deliver(f, user, fx);
        await f.telemetry.drain();
        const actual = { responses, projections: projectionSnapshot(f, user, repos) };
        const file = join(fixturesDir, 'otlp', `${name}.expected.json`);
        if (process.env.UPDATE_GOLDEN === '1') await writeFile(file, `${JSON.stringify(actual, null, 1)}\n`);
        const expected = JSON.parse(await readFile(file, 'utf8'));
        assert.deepStrictEqual(actual, expected);
      } finally {
        await f.cleanup();
      }
    });
  }
});
