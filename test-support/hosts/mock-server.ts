import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a mock model server received, body parsed as JSON when it was JSON. */
export interface LoggedRequest {
  method: string;
  path: string;
  body: any;
  reply: unknown;
}

export interface MockServer {
  /** http://127.0.0.1:<port> */
  url: string;
  requests: LoggedRequest[];
  close(): Promise<void>;
}

export type MockHandler = (req: { method: string; path: string; body: any }, res: ServerResponse) => unknown;

/** An HTTP server on 127.0.0.1 (ephemeral port) that parses JSON bodies and logs every request. */
export async function startMockServer(handle: MockHandler): Promise<MockServer> {
  const requests: LoggedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch (e) {
        body = { _raw: raw.slice(0, 2000), _error: String(e) };
      }
      const entry = { method: req.method ?? 'GET', path: new URL(req.url ?? '/', 'http://x').pathname, body };
      const reply = handle(entry, res);
      requests.push({ ...entry, reply });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}
