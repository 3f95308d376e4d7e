import { isLoopbackHost } from '../text/loopback.js';
/**
 * The observer's HTTP receiver listens on 127.0.0.1 for the hosts' own exporters, which never send
 * an Origin header and always name a loopback Host. A web page in the user's browser can reach the
 * same port: cross-site (its Origin names the page) or through DNS rebinding (its Host names the
 * attacker's domain, resolved to 127.0.0.1). Both would let any site forge skill telemetry or
 * session registrations, so both are refused (reliability-anchors.md §5, item 59).
 */

export interface Refusal {
  status: 403;
  code: 'SF_E_FORBIDDEN';
  message: string;
}

/** `host[:port]` -> host, lowercased (`[::1]:80` -> `[::1]`). */
function hostname(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

function originHost(origin: string): string | undefined {
  try {
    return hostname(new URL(origin).host);
  } catch {
    return undefined;
  }
}

/** Why a request to a loopback-only receiver bound to `boundHost` looks like it came from a web page; undefined when it does not. */
export function browserRequestRefusal(headers: { host?: string; origin?: string }, boundHost: string): Refusal | undefined {
  const allowed = (name: string | undefined) => name !== undefined && (isLoopbackHost(name) || name === boundHost.toLowerCase());
  if (headers.host !== undefined && !allowed(hostname(headers.host))) {
    return { status: 403, code: 'SF_E_FORBIDDEN', message: `Host "${headers.host}" is not a loopback address: requests through other names (DNS rebinding) are refused; send to http://127.0.0.1:<port>` };
  }
  if (headers.origin !== undefined && !allowed(originHost(headers.origin))) {
    return { status: 403, code: 'SF_E_FORBIDDEN', message: `requests from web pages (Origin "${headers.origin}") are refused: only local agent hosts may send telemetry here` };
  }
  return undefined;
}
