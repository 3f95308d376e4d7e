import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): Node answers 100 Continue as soon as the headers
 * arrive, so a client uploading a 200 MiB release with a wrong token sent all of it before it
 * heard 401. Here the 100 goes out only when the hub starts reading the body: a request the hub
 * refuses on its headers (authentication, scope, a declared length over the limit, a wrong
 * content type) gets its final answer before the client sends a byte of the body.
 */
export function continueWhenBodyIsRead(server: Server): void {
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const read = req._read;
    req._read = function (size: number) {
      req._read = read;
      // after a final answer the body is only drained (or the connection closed): no 100 then
      if (!res.headersSent && !res.writableEnded) res.writeContinue();
      return read.call(this, size);
    };
    for (const handle of handlers) handle.call(server, req, res);
  });
}
