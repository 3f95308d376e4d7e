import { connect } from 'node:net';
import type { ObserverSocketMessage } from '../../schemas/generated/observer-socket-message.js';

/**
 * Client of the session-registry socket for adapters and hooks. Fails open by design: it never
 * throws and gives up after `timeoutMs` (default 250 ms), returning undefined, so a dead or slow
 * observer never blocks or slows the agent.
 */
export function sendObserverMessage(socketPath: string, message: ObserverSocketMessage, timeoutMs = 250): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    let buffer = '';
    const finish = (value: Record<string, unknown> | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const socket = connect(socketPath);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(JSON.stringify(message) + '\n'));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl < 0) return;
      try {
        finish(JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>);
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
        finish(undefined);
      }
    });
    socket.on('error', () => finish(undefined));
    socket.on('close', () => finish(undefined));
  });
}
