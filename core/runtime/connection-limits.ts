import type { ServerOptions } from 'node:http';

/**
 * How long a client may take and how many may connect to one of Forge's HTTP servers (the hub, the
 * observer's receiver). Set explicitly (reliability-anchors #58): Node's defaults keep a request
 * that trickles its body for five minutes and a connection that sends nothing for 90 s, and check
 * them only every 30 s.
 */
export interface ConnectionLimits {
  /** the request line and headers must arrive within this */
  headersTimeoutMs: number;
  /** the whole request, body included */
  requestTimeoutMs: number;
  /** an idle keep-alive connection is closed after this */
  keepAliveTimeoutMs: number;
  /** how often the timeouts above are checked */
  checkIntervalMs: number;
  /** open connections at once; more are refused, so idle sockets cannot use up file descriptors */
  maxConnections: number;
}

/** The longest request target (path + query) the hub serves; a longer one is a 414 (hub/app.ts). */
export const MAX_URL_BYTES = 8 * 1024;

/**
 * Node's parser counts the request line into its header limit and answers 431 by itself past it:
 * the limit is Node's default (16 KiB) plus room for a URL at MAX_URL_BYTES and somewhat beyond, so
 * a long URL reaches the app (and gets its 414) while really large headers still get the 431.
 */
export const MAX_HEADER_BYTES = MAX_URL_BYTES + 16 * 1024;

/** The options of http.createServer that carry `limits` (maxConnections is set on the server). */
export const serverOptionsFor = (limits: ConnectionLimits): ServerOptions => ({
  maxHeaderSize: MAX_HEADER_BYTES,
  headersTimeout: limits.headersTimeoutMs,
  requestTimeout: limits.requestTimeoutMs,
  keepAliveTimeout: limits.keepAliveTimeoutMs,
  connectionsCheckingInterval: limits.checkIntervalMs,
});
