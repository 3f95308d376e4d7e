import type { Context } from 'hono';
import type { HubEnv } from '../auth/principal.js';

/** Absolute origin for links in API responses: the configured base URL, else the request's origin. */
export function originOf(c: Context<HubEnv>): string {
  return c.get('registry').baseUrl || new URL(c.req.url).origin;
}

/**
 * The decoded path segments of the request after the first `skip` segments, for wildcard routes
 * (file paths inside a release). Undefined when a segment does not decode.
 */
export function restSegments(c: Context<HubEnv>, skip: number): string[] | undefined {
  const parts = new URL(c.req.url).pathname.split('/').slice(1 + skip);
  try {
    return parts.map((p) => decodeURIComponent(p));
  } catch {
    return undefined; // malformed %-escapes: the caller answers 404 like any unknown path
  }
}
