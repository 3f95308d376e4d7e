import { chmod, mkdir, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { hasErrno } from '../errors/index.js';

/**
 * The session-registry socket: JSON lines over a Unix socket (0600, in the 0700 run directory).
 * Each request line gets exactly one response line, in order. Lines over 64 KiB or invalid JSON
 * get an error response; a misbehaving client never affects another.
 */

export type MessageHandler = (message: unknown) => Promise<Record<string, unknown>>;

const MAX_LINE = 64 * 1024;

export interface SocketServer {
  path: string;
  close(): Promise<void>;
}

function serve(socket: Socket, handle: MessageHandler): void {
  let buffer = '';
  let chain = Promise.resolve();
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    if (buffer.length > MAX_LINE && !buffer.includes('\n')) {
      socket.end(JSON.stringify({ ok: false, error: { code: 'SF_E_LIMIT', message: `request lines are limited to ${MAX_LINE} bytes` } }) + '\n');
      buffer = '';
      return;
    }
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      chain = chain.then(async () => {
        let response: Record<string, unknown>;
        try {
          response = await handle(JSON.parse(line) as unknown);
        } catch (e) {
          const code = e instanceof SyntaxError ? 'SF_E_USAGE' : ((e as { code?: string }).code ?? 'SF_E_INTERNAL');
          response = { ok: false, error: { code, message: e instanceof SyntaxError ? 'the line is not JSON' : (e as Error).message } };
        }
        if (!socket.destroyed) socket.write(JSON.stringify(response) + '\n');
      });
    }
  });
  socket.on('error', () => socket.destroy());
}

/** Listens on `path` (a stale socket file is replaced: the caller holds the observer lock). */
export async function startSocketServer(path: string, handle: MessageHandler): Promise<SocketServer> {
  const pipe = process.platform === 'win32';
  if (!pipe) {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await chmod(dirname(path), 0o700);
  }
  if (!pipe) await unlink(path).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e)));
  const server: Server = createServer((s) => serve(s, handle));
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  if (process.platform !== 'win32') await chmod(path, 0o600);
  return {
    path,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!pipe) await unlink(path).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e)));
    },
  };
}
