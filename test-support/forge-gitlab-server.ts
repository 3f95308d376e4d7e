import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A GitLab REST API v4 server on 127.0.0.1 for `sf forge fetch` tests. It answers as GitLab does:
 * the API under `/api/v4`, projects by numeric ID or URL-encoded full path (`group%2Fsub%2Fproject`),
 * issue notes newest first unless `sort=asc`, `per_page` (default 20, at most 100) with `Link`,
 * `x-next-page`, `x-total` headers, labels as an array of strings on the issue, `RateLimit-*`
 * headers, and errors as `{"message": "404 Project Not Found"}` (an unknown route is
 * `{"error": "404 Not Found"}`). A token is accepted as `Authorization: Bearer` or `PRIVATE-TOKEN`;
 * `Authorization: token …` is not a GitLab scheme, so such a request is anonymous.
 */
export interface GitLabProject {
  id: number;
  /** full path, e.g. `group/sub/project` */
  path: string;
  /** iid -> notes, in any order (sorted by created_at on the way out) */
  issues: Record<number, unknown[]>;
  /** iid -> label names */
  labels?: Record<number, string[]>;
  /** merge request iid -> its notes, description and labels */
  mergeRequests?: Record<number, { notes: unknown[]; description?: string; labels?: string[] }>;
  /** private projects answer 404 to anonymous requests, as GitLab does (it hides their existence) */
  visibility?: 'public' | 'private';
  /** the token may not read this project: 403 */
  forbidden?: boolean;
}

export interface GitLabServerOptions {
  projects: GitLabProject[];
  /** the valid personal access token; any other presented token is 401 */
  token?: string;
  /** drop the Link header (a proxy that strips it); x-next-page stays */
  noLink?: boolean;
  /** hooks that may answer a request instead of the normal handler; return true when handled */
  intercept?: (req: IncomingMessage, res: ServerResponse, n: number) => boolean;
}

export interface GitLabRequest {
  url: string;
  authorization?: string;
  privateToken?: string;
}

export interface GitLabServer {
  url: string;
  /** the API root, `${url}/api/v4` */
  api: string;
  requests: GitLabRequest[];
  close(): Promise<void>;
}

type Reply = (status: number, body: unknown, headers?: Record<string, string>) => void;

/** The presented token, as GitLab finds it (Bearer or PRIVATE-TOKEN), or undefined. */
function presentedToken(req: IncomingMessage): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  const header = req.headers['private-token'];
  return bearer?.[1] ?? (typeof header === 'string' ? header : undefined);
}

function createdAt(note: unknown): number {
  return Date.parse(String((note as { created_at?: unknown }).created_at));
}

/** GitLab's offset pagination headers for `page` of `pages`, links keeping every query parameter. */
function pageHeaders(self: URL, page: number, pages: number, total: number, perPage: number, withLink: boolean): Record<string, string> {
  const at = (p: number) => {
    const u = new URL(self);
    u.searchParams.set('page', String(p));
    u.searchParams.set('per_page', String(perPage));
    return `<${u.toString()}>`;
  };
  const rels = [...(page > 1 ? [`${at(page - 1)}; rel="prev"`] : []), ...(page < pages ? [`${at(page + 1)}; rel="next"`] : []), `${at(1)}; rel="first"`, `${at(pages)}; rel="last"`];
  return {
    'x-page': String(page),
    'x-per-page': String(perPage),
    'x-next-page': page < pages ? String(page + 1) : '',
    'x-prev-page': page > 1 ? String(page - 1) : '',
    'x-total': String(total),
    'x-total-pages': String(pages),
    ...(withLink ? { link: rels.join(', ') } : {}),
  };
}

function serveNotes(notes: unknown[], self: URL, options: GitLabServerOptions, reply: Reply): void {
  const perPage = Math.min(Math.max(Number(self.searchParams.get('per_page') ?? 20) || 20, 1), 100);
  const page = Math.max(Number(self.searchParams.get('page') ?? 1) || 1, 1);
  const asc = self.searchParams.get('sort') === 'asc';
  const sorted = [...notes].sort((a, b) => (asc ? createdAt(a) - createdAt(b) : createdAt(b) - createdAt(a)));
  const pages = Math.max(1, Math.ceil(sorted.length / perPage));
  reply(200, sorted.slice((page - 1) * perPage, page * perPage), pageHeaders(self, page, pages, sorted.length, perPage, !options.noLink));
}

export async function startGitLabServer(options: GitLabServerOptions): Promise<GitLabServer> {
  const requests: GitLabRequest[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const privateToken = req.headers['private-token'];
    requests.push({ url: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), ...(typeof privateToken === 'string' ? { privateToken } : {}) });
    if (options.intercept?.(req, res, requests.length)) return;
    const reply: Reply = (status, body, headers = {}) => {
      const reset = Math.floor(Date.now() / 1000) + 60;
      res.writeHead(status, {
        'content-type': 'application/json',
        'ratelimit-limit': '2000',
        'ratelimit-observed': String(requests.length),
        'ratelimit-remaining': String(2000 - requests.length),
        'ratelimit-reset': String(reset),
        'ratelimit-resettime': new Date(reset * 1000).toUTCString(),
        ...headers,
      });
      res.end(JSON.stringify(body));
    };
    const token = presentedToken(req);
    if (token !== undefined && token !== options.token) return reply(401, { message: '401 Unauthorized' });
    const self = new URL(req.url ?? '/', base);
    const m = /^\/api\/v4\/projects\/([^/]+)\/(issues|merge_requests)\/(\d+)(\/notes)?$/.exec(self.pathname);
    if (!m) return reply(404, { error: '404 Not Found' });
    const id = decodeURIComponent(m[1]);
    const project = options.projects.find((p) => String(p.id) === id || p.path.toLowerCase() === id.toLowerCase());
    if (!project || (project.visibility === 'private' && token === undefined)) return reply(404, { message: '404 Project Not Found' });
    if (project.forbidden) return reply(403, { message: '403 Forbidden' });
    const iid = Number(m[3]);
    if (m[2] === 'merge_requests') {
      const mr = project.mergeRequests?.[iid];
      if (!mr) return reply(404, { message: '404 Not found' });
      if (m[4]) return serveNotes(mr.notes, self, options, reply);
      return reply(200, { id: project.id * 1000 + iid, iid, project_id: project.id, title: 'fixture', state: 'opened', description: mr.description ?? null, author: { username: 'mr-author' }, labels: mr.labels ?? [], web_url: `${base}/${project.path}/-/merge_requests/${iid}` });
    }
    const notes = project.issues[iid];
    if (!notes) return reply(404, { message: '404 Issue Not Found' });
    if (m[4]) return serveNotes(notes, self, options, reply);
    reply(200, { id: project.id * 1000 + iid, iid, project_id: project.id, title: 'fixture', state: 'opened', labels: project.labels?.[iid] ?? [], web_url: `${base}/${project.path}/-/issues/${iid}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    api: `${base}/api/v4`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
}
