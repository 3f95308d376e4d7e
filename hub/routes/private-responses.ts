import type { MiddlewareHandler } from 'hono';

/**
 * Marks every answer (errors included) as one account's data: no cache may keep it (a shared cache
 * must not hand it to another caller, a browser must not keep it on disk), and it is never sniffed
 * into something other than its declared type.
 */
export const privateResponses: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set('cache-control', 'private, no-store');
  c.res.headers.set('x-content-type-options', 'nosniff');
};
