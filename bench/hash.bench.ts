import { access } from 'node:fs/promises';
import { ensureHashTree, TREE_BYTES, TREE_FILES } from './hash-tree.js';
import { join } from 'node:path';
import { median, ms, ratio, repoRoot, report, runTimed, sfBin, type ChildRun } from './support.js';

/**
 * `sf skit hash --json` over a generated 256 MiB / 2,000-file SKIT against `openssl dgst -sha256`
 * over the same files in one process, measured alternately in the same run. Target: ratio <= 1.0.
 * A third figure, the hashing engine alone (dist/bench/hash-engine.js: no CLI framework, no
 * validation), shows how much of the end-to-end time is hashing.
 */

const REPETITIONS = 9;
const TARGET = 1.0;
/** well below Linux's ARG_MAX, so openssl gets every file in a single invocation */
const MAX_ARG_BYTES = 1024 * 1024;

export default {
  name: 'sf skit hash vs openssl dgst -sha256 (256 MiB, 2,000 files)',
  async run(): Promise<void> {
    await access(sfBin).catch(() => {
      throw new Error(`${sfBin} is missing; run \`npm run build\` (npm run bench does)`);
    });
    const tree = await ensureHashTree();
    if (tree.files.length !== TREE_FILES || tree.bytes !== TREE_BYTES) throw new Error('the cached bench tree has an unexpected shape; delete it and rerun');
    const argBytes = tree.files.reduce((sum, f) => sum + Buffer.byteLength(f) + 1, 0);
    if (argBytes > MAX_ARG_BYTES) throw new Error(`the file list needs ${argBytes} argument bytes; too many for one openssl invocation`);

    const sf = () => runTimed(process.execPath, [sfBin, 'skit', 'hash', tree.root, '--json'], { capture: true });
    const openssl = () => runTimed('openssl', ['dgst', '-sha256', ...tree.files], { cwd: tree.root, capture: true });
    const engine = () => runTimed(process.execPath, [join(repoRoot, 'dist', 'bench', 'hash-engine.js'), tree.root], { capture: true });

    // warm-up (page cache) and a correctness check: both tools must report the same digests
    const sslRun = await openssl();
    const agreement = checkAgreement(await sf(), sslRun);
    checkAgreement(await engine(), sslRun);

    const times = { sf: [] as number[], openssl: [] as number[], engine: [] as number[] };
    const runners = { sf, openssl, engine };
    for (let i = 0; i < REPETITIONS; i++) {
      // rotate the order so drift on this shared machine hits every command alike
      const order = (['openssl', 'sf', 'engine'] as const).map((_, k, all) => all[(i + k) % all.length]);
      for (const name of order) times[name].push((await runners[name]()).ms);
    }
    const sfMedian = median(times.sf);
    const sslMedian = median(times.openssl);
    const engineMedian = median(times.engine);
    const list = (values: number[]) => `[${values.map((t) => t.toFixed(0)).join(' ')}]`;
    report([
      ['tree', `${tree.files.length} files, ${tree.bytes / 1024 / 1024} MiB (${tree.generated ? 'generated now' : 'cached'}: ${tree.root})`],
      ['digests agree', agreement],
      ['openssl dgst -sha256 (median)', `${ms(sslMedian)}  ${list(times.openssl)}`],
      ['sf skit hash --json (median)', `${ms(sfMedian)}  ${list(times.sf)}`],
      ['hash engine only (median)', `${ms(engineMedian)}  ${list(times.engine)}`],
      ['ratio sf / openssl', ratio(sfMedian, sslMedian, TARGET)],
      ['ratio engine / openssl', ratio(engineMedian, sslMedian)],
      // on a shared machine the fastest runs are the least disturbed ones
      ['ratio of best runs sf / openssl', ratio(Math.min(...times.sf), Math.min(...times.openssl))],
    ]);
  },
};

/** Compares every per-file digest of `sf skit hash --json` with openssl's `SHA2-256(path)= hex` lines. */
function checkAgreement(sfRun: ChildRun, sslRun: ChildRun): string {
  if (sfRun.code !== 0) throw new Error(`sf skit hash failed (${sfRun.code}): ${sfRun.stderr || sfRun.stdout.slice(0, 2000)}`);
  if (sslRun.code !== 0) throw new Error(`openssl failed (${sslRun.code}): ${sslRun.stderr}`);
  const sfFiles = (JSON.parse(sfRun.stdout) as { files: { path: string; sha256: string }[] }).files;
  const ssl = new Map<string, string>();
  for (const line of sslRun.stdout.split('\n')) {
    const m = /^[\w-]+\((.*)\)= ([0-9a-f]{64})$/.exec(line);
    if (m) ssl.set(m[1], m[2]);
  }
  const mismatched = sfFiles.filter((f) => ssl.get(f.path) !== f.sha256);
  if (sfFiles.length !== ssl.size || mismatched.length > 0) {
    throw new Error(`digests differ: sf ${sfFiles.length} files, openssl ${ssl.size}, mismatched ${mismatched.slice(0, 3).map((f) => f.path).join(', ')}`);
  }
  return `yes (${sfFiles.length} files)`;
}
