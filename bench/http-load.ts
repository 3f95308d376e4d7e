import { Agent, request } from 'node:http';

/**
 * A small HTTP load generator, run as its own process by bench/hub-download.bench.ts so that it
 * does not share a thread with the server it measures:
 *
 *   node dist/bench/http-load.js <url> <requests> <concurrency>
 *
 * Keeps `concurrency` requests in flight over keep-alive connections until `requests` have
 * completed, drains every body, and prints one JSON line: requests, bytes, ms, errors, statuses.
 */

async function main(url: string, total: number, concurrency: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  let started = 0;
  let bytes = 0;
  let errors = 0;
  const statuses: Record<string, number> = {};
  const one = () =>
    new Promise<void>((resolve) => {
      const req = request(url, { agent }, (res) => {
        statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', resolve);
        res.on('error', () => {
          errors++;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
  const worker = async () => {
    while (started < total) {
      started++;
      await one();
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  agent.destroy();
  process.stdout.write(JSON.stringify({ requests: total, bytes, ms, errors, statuses }) + '\n');
}

const [url, total, concurrency] = process.argv.slice(2);
main(url, Number(total), Number(concurrency)).catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exitCode = 1;
});
