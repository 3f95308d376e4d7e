import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A GitHub-compatible REST server on 127.0.0.1 for `sf forge fetch` tests: it serves issue
 * comment threads page by page with Link headers, the issue (with labels), and can answer with
 * rate-limit refusals, redirects and auth failures on demand.
 */
export interface ThreadServerOptions {
  /** `owner/name#number` -> comments array */
  threads: Record<string, unknown[]>;
  /** `owner/name#number` -> labels as GitHub returns them */
  labels?: Record<string, unknown[]>;
  /** when set, requests must carry `authorization: token <value>` */
  token?: string;
  /** hooks that may answer a request instead of the normal handler; return true when handled */
  intercept?: (req: IncomingMessage, res: ServerResponse, n: number) => boolean;
}

export interface ThreadServer {
  url: string;
  requests: { url: string; authorization?: string }[];
  close(): Promise<void>;
}

export async function startThreadServer(options: ThreadServerOptions): Promise<ThreadServer> {
  const requests: ThreadServer['requests'] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    if (options.intercept?.(req, res, requests.length)) return;
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', ...headers });
      res.end(JSON.stringify(body));
    };
    if (options.token && req.headers.authorization !== `token ${options.token}`) return json(401, { message: 'Bad credentials' });
    const u = new URL(req.url ?? '/', base);
    const m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)(\/comments)?$/.exec(u.pathname);
    const key = m ? `${m[1]}/${m[2]}#${m[3]}` : '';
    const thread = options.threads[key];
    if (!m || !thread) return json(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    if (!m[4]) return json(200, { number: Number(m[3]), title: 'fixture', state: 'closed', labels: options.labels?.[key] ?? [] });
    const perPage = Math.min(Number(u.searchParams.get('per_page') ?? 30), 100);
    const page = Number(u.searchParams.get('page') ?? 1);
    const pages = Math.max(1, Math.ceil(thread.length / perPage));
    const link = (p: number) => `<${base}${u.pathname}?per_page=${perPage}&page=${p}>`;
    const links = [...(page < pages ? [`${link(page + 1)}; rel="next"`, `${link(pages)}; rel="last"`] : []), ...(page > 1 ? [`${link(1)}; rel="first"`, `${link(page - 1)}; rel="prev"`] : [])];
    json(200, thread.slice((page - 1) * perPage, page * perPage), links.length ? { link: links.join(', ') } : {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
