import { connect, type Socket } from 'node:net';

/**
 * Opens a raw TCP connection to 127.0.0.1:`port`, lets `send` write to it, and resolves with what
 * the server answered and when it closed the connection (for timeout and slowloris tests).
 */
export function rawClient(port: number, send: (socket: Socket) => void, giveUpMs = 10_000): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => send(socket));
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
    setTimeout(() => reject(new Error('the server kept the connection open')), giveUpMs).unref();
  });
}

/** Writes an unfinished request's headers one line every 100 ms until the socket closes. */
export function trickleHeaders(socket: Socket, path = '/v1/logs'): void {
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
  const drip = setInterval(() => socket.writable && socket.write('X-A: b\r\n'), 100);
  socket.on('close', () => clearInterval(drip));
}
