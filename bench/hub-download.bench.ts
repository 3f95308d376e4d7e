import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packTree } from '../core/archive/index.js';
import { scaffoldSkit } from '../core/skit/scaffold.js';
import { walkTree } from '../core/skit/tree.js';
import { startServer, startSfHub, type ServerProcess } from './hub-server.js';
import { benchTempDir, median, repoRoot, report, runTimed, seededRandom, sfBin } from './support.js';

/**
 * 200 concurrent downloads of a 1 MiB release archive from `sf hub serve` (the immutable
 * /r/<owner>/<name>/<version>.tgz URL, through auth, lookup and the blob store) against a plain
 * node:http static file server serving the same bytes. Each server runs in its own process, the
 * load generator in a third; the two targets alternate, several rounds each.
 * Target: hub throughput / static throughput >= 0.7.
 */

const ARCHIVE_BYTES = 1024 * 1024;
const CONCURRENCY = 200;
const REQUESTS = 1000;
const ROUNDS = 5;
const TARGET = 0.7;

interface LoadResult {
  requests: number;
  bytes: number;
  ms: number;
  errors: number;
  statuses: Record<string, number>;
}

async function load(url: string, requests: number): Promise<LoadResult> {
  const run = await runTimed(process.execPath, [join(repoRoot, 'dist/bench/http-load.js'), url, String(requests), String(CONCURRENCY)], { capture: true });
  if (run.code !== 0) throw new Error(`load generator failed: ${run.stderr}`);
  const result = JSON.parse(run.stdout) as LoadResult;
  if (result.errors > 0 || result.statuses['200'] !== requests) throw new Error(`${url}: ${result.errors} errors, statuses ${JSON.stringify(result.statuses)}`);
  return result;
}

/** A SKIT whose release archive is about 1 MiB: one skill with an incompressible asset. */
async function bigSkit(dir: string): Promise<void> {
  const rnd = seededRandom(7);
  const asset = Buffer.alloc(ARCHIVE_BYTES - 4096);
  for (let i = 0; i < asset.length; i++) asset[i] = Math.floor(rnd() * 256);
  for (const [path, text] of Object.entries(scaffoldSkit({ id: 'bench/big' }))) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await writeFile(join(dir, 'skills/review/asset.bin'), asset);
}

export default {
  name: 'hub release download: 200 concurrent 1 MiB downloads vs a node:http static server',
  async run(): Promise<void> {
    for (const f of [sfBin, join(repoRoot, 'dist/bench/http-load.js'), join(repoRoot, 'dist/bench/static-server.js')]) {
      await access(f).catch(() => {
        throw new Error(`${f} is missing; run \`npm run build\` (npm run bench does)`);
      });
    }
    const tmp = await benchTempDir('sf-bench-hub-');
    const servers: ServerProcess[] = [];
    try {
      const kit = join(tmp.path, 'kit');
      await bigSkit(kit);
      const archive = await packTree(kit, (await walkTree(kit)).files);
      const dataDir = join(tmp.path, 'hub');
      const sfHome = join(tmp.path, 'sf-home');
      const admin = await runTimed(process.execPath, [sfBin, 'hub', 'admin', 'create-user', 'bench', '--data', dataDir, '--json'], { capture: true });
      if (admin.code !== 0) throw new Error(admin.stderr);
      const token = (JSON.parse(admin.stdout) as { token: string }).token;
      const hub = await startSfHub(dataDir, sfHome);
      servers.push(hub);
      const put = await fetch(`${hub.url}/api/v1/skits/bench/big/releases/1.0.0`, { method: 'PUT', body: new Uint8Array(archive), headers: { authorization: `Bearer ${token}` } });
      if (put.status !== 201) throw new Error(`publish failed: ${put.status} ${await put.text()}`);
      const hubUrl = `${hub.url}/r/bench/big/1.0.0.tgz`;
      const served = Buffer.from(await (await fetch(hubUrl)).arrayBuffer());
      const file = join(tmp.path, 'big-1.0.0.tgz');
      await writeFile(file, served);
      const stat = await startServer([join(repoRoot, 'dist/bench/static-server.js'), file], /listening (\d+)/, (m) => `http://127.0.0.1:${m[1]}/big-1.0.0.tgz`);
      servers.push(stat);

      await load(hubUrl, CONCURRENCY); // warm-up: connections, JIT, page cache
      await load(stat.url, CONCURRENCY);
      const mibps = { hub: [] as number[], static: [] as number[] };
      for (let i = 0; i < ROUNDS; i++) {
        const order = i % 2 === 0 ? (['hub', 'static'] as const) : (['static', 'hub'] as const);
        for (const name of order) {
          const r = await load(name === 'hub' ? hubUrl : stat.url, REQUESTS);
          mibps[name].push(r.bytes / 1024 / 1024 / (r.ms / 1000));
        }
      }
      const hubMedian = median(mibps.hub);
      const staticMedian = median(mibps.static);
      const r = hubMedian / staticMedian;
      const list = (v: number[]) => `[${v.map((x) => x.toFixed(0)).join(' ')}]`;
      report([
        ['archive', `${served.length} bytes, ${REQUESTS} requests x ${ROUNDS} rounds, ${CONCURRENCY} concurrent`],
        ['static node:http (median)', `${staticMedian.toFixed(0)} MiB/s  ${list(mibps.static)}`],
        ['sf hub serve (median)', `${hubMedian.toFixed(0)} MiB/s  ${list(mibps.hub)}`],
        ['ratio hub / static', `${r.toFixed(2)}x (target >= ${TARGET.toFixed(2)}x: ${r >= TARGET ? 'met' : 'NOT met'})`],
      ]);
    } finally {
      for (const s of servers) await s.stop();
      await tmp.cleanup();
    }
  },
};
