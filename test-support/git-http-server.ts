import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startServer, type TestServer } from './http-server.js';

export interface GitHttpServerOptions {
  /** directory holding the bare repositories (GIT_PROJECT_ROOT) */
  projectRoot: string;
  /** when set, every request needs this HTTP Basic user and password (401 otherwise) */
  auth?: { username: string; password: string };
  /** answer each pack request (POST) only after this long: a server packing a large repository */
  packDelayMs?: number;
}

/**
 * A real git smart-HTTP server on 127.0.0.1: `git http-backend` run as CGI behind node:http.
 * The CGI response headers (including `Status:`) are translated to the HTTP response.
 */
export function startGitHttpServer(options: GitHttpServerOptions): Promise<TestServer> {
  return startServer(async (req, res) => {
    if (options.auth && !authorized(req, options.auth)) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' });
      res.end('authentication required');
      return;
    }
    if (options.packDelayMs && req.method === 'POST') await new Promise((r) => setTimeout(r, options.packDelayMs));
    return runBackend(req, res, options.projectRoot);
  });
}

function authorized(req: IncomingMessage, auth: { username: string; password: string }): boolean {
  const header = req.headers.authorization ?? '';
  const expected = 'Basic ' + Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
  return header === expected;
}

function runBackend(req: IncomingMessage, res: ServerResponse, projectRoot: string): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_ADDR: '127.0.0.1',
    REMOTE_USER: 'test',
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: 'HTTP/1.1',
  };
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  if (req.headers['git-protocol']) env.HTTP_GIT_PROTOCOL = String(req.headers['git-protocol']);

  return new Promise((resolve, reject) => {
    const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = findHeaderEnd(head);
      if (!end) return;
      headersDone = true;
      writeCgiHead(res, head.subarray(0, end.at).toString('latin1'));
      res.write(head.subarray(end.at + end.length));
    });
    cgi.on('error', reject);
    cgi.on('close', () => {
      if (!headersDone) res.writeHead(502);
      res.end();
      resolve();
    });
  });
}

function findHeaderEnd(buf: Buffer): { at: number; length: number } | undefined {
  const crlf = buf.indexOf('\r\n\r\n');
  const lf = buf.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  if (lf >= 0) return { at: lf, length: 2 };
  return undefined;
}

function writeCgiHead(res: ServerResponse, head: string): void {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
    else headers[name] = value;
  }
  res.writeHead(status, headers);
}
