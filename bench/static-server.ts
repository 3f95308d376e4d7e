import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The baseline of bench/hub-download.bench.ts: a plain node:http static file server for one file
 * (stat, then stream it), the way a minimal static server answers:
 *
 *   node dist/bench/static-server.js <file>   # prints "listening <port>"
 */
const file = process.argv[2];
const server = createServer(async (req, res) => {
  try {
    const st = await stat(file);
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': st.size });
    createReadStream(file).pipe(res);
  } catch (e) {
    res.writeHead(500).end(String(e));
  }
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
