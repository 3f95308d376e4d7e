import { SfError } from '../../errors/index.js';
import { appendAll } from '../append.js';
import { normalizeLabels } from '../thread.js';
import { choosePlatform, issueEndpoints, withoutTrailingSlashes, type FetchPlatform } from './platform.js';
import { nextLink, type WaitAdvice } from './rate-limit.js';
import { getJson, MAX_RESPONSE_BYTES, pace, REQUEST_TIMEOUT_MS, type JsonResponse, type RequestPolicy } from './request.js';
import { isLoopbackHost } from '../../text/loopback.js';

export interface FetchThreadOptions {
  /** REST API root: https://api.github.com, https://gitea.example/api/v1, https://gitlab.com/api/v4, ... */
  api: string;
  /** default: detected from `api` (see detectFetchPlatform) */
  platform?: FetchPlatform;
  /** owner/name; on GitLab a project path (group/subgroup/project) or numeric ID */
  repo: string;
  issue: number;
  /** GitLab: `issue` is a merge request's IID (its notes and description are read) */
  mergeRequest?: boolean;
  token?: string;
  /** page size requested with per_page (default 100, the maximum of GitHub and GitLab) */
  perPage?: number;
  /** stop after this many pages (default 100; `--max-pages`) */
  maxPages?: number;
  /** longest single rate-limit wait in ms (default 60 s) */
  maxWaitMs?: number;
  /** also read the issue itself: its labels and body (default true) */
  labels?: boolean;
  /** deadline of each request, headers and body (default REQUEST_TIMEOUT_MS, 60 s) */
  timeoutMs?: number;
  /** largest response body (default MAX_RESPONSE_BYTES, 32 MiB) */
  maxResponseBytes?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  onWait?: (advice: WaitAdvice) => void;
}

export interface FetchedThread {
  api: string;
  platform: FetchPlatform;
  repo: string;
  issue: number;
  /** true when `issue` is a GitLab merge request */
  mergeRequest?: boolean;
  /**
   * comments (GitLab: notes, system notes included) exactly as the API returned them, all pages in
   * order; for a pull request (GitHub, Gitea) its submitted reviews follow, as the API returned them
   */
  comments: unknown[];
  /** how many of `comments` are pull request reviews (the last ones) */
  reviews: number;
  labels: string[] | null;
  /**
   * the issue's own body (GitHub/Gitea `body`, GitLab `description`), where e.g. FORGE:PRIOR_GIST
   * lives (spec 4.2) and the context chain starts (5); null when empty or not read
   */
  body: string | null;
  /** who wrote the issue body, when the API says */
  author?: string;
  pages: number;
  waits: WaitAdvice[];
}

/** The parts of an issue (GitHub/Gitea: body, user, pull_request; GitLab: description, author) that fetch reads. */
interface IssueJson {
  labels?: unknown;
  pull_request?: unknown;
  body?: unknown;
  description?: unknown;
  user?: unknown;
  author?: unknown;
}

/** `{login}` (GitHub, Gitea) or `{username}` (GitLab). */
function loginOf(user: unknown): string | undefined {
  if (typeof user !== 'object' || user === null) return undefined;
  const { login, username } = user as { login?: unknown; username?: unknown };
  const name = typeof login === 'string' ? login : typeof username === 'string' ? username : '';
  return name || undefined;
}

/** Pages read before giving up (`--max-pages`): 10,000 comments at 100 per page. */
export const DEFAULT_MAX_PAGES = 100;

/** The issue's label names; `null` (some Gitea versions for no labels) is no labels. */
function labelsOfIssue(value: unknown, url: string, platform: FetchPlatform): string[] {
  if (value === null) return [];
  try {
    return normalizeLabels(value);
  } catch (e) {
    throw new SfError('SF_E_FETCH', `GET ${url} returned "labels" that are not a list of names`, { hint: `the API does not answer as ${platform} does here; check --api and --platform`, cause: e });
  }
}

/**
 * The next page: `Link: rel="next"` (GitHub, Gitea, GitLab); when a proxy dropped the Link
 * header, GitLab's `x-next-page` (an empty value on the last page).
 */
function nextPage(res: JsonResponse, platform: FetchPlatform): string | null {
  const linked = nextLink(res.headers.get('link'), res.url);
  const page = res.headers.get('x-next-page')?.trim();
  if (linked || platform !== 'gitlab' || !page || !/^\d+$/.test(page)) return linked;
  const url = new URL(res.url);
  url.searchParams.set('page', page);
  return url.toString();
}

/** Paging state shared by the listings of one fetch: the pace of the last response, the page budget. */
interface Pager {
  policy: RequestPolicy;
  platform: FetchPlatform;
  origin: string;
  maxPages: number;
  last: Headers | null;
  pages: number;
}

/** Every item of a paginated listing (comments, reviews), following next links on the API's origin only. */
async function readListing(first: string, what: string, pager: Pager): Promise<unknown[]> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let url: string | null = first;
  let pages = 0;
  while (url) {
    if (seen.has(url)) throw new SfError('SF_E_FETCH', `pagination loops back to ${url}`, { hint: 'the server sends a Link header that repeats a page' });
    if (pages >= pager.maxPages) throw new SfError('SF_E_LIMIT', `${what === 'comments' ? 'the thread' : `the list of ${what}`} has more than ${pages} pages`, { hint: `raise --max-pages (now ${pager.maxPages}), or --per-page if it is below 100` });
    seen.add(url);
    if (pager.last) await pace(pager.last, pager.policy);
    const res = await getJson(url, pager.policy);
    if (!Array.isArray(res.json)) throw new SfError('SF_E_FETCH', `GET ${res.url} did not return a JSON array of ${what}`, { hint: 'check --api, --repo and --issue' });
    appendAll(items, res.json);
    pages++;
    pager.pages++;
    pager.last = res.headers;
    url = nextPage(res, pager.platform);
    if (url && new URL(url).origin !== pager.origin) throw new SfError('SF_E_FETCH', `the next page is on another host (${new URL(url).origin}); not following it`, { hint: 'the token is only sent to --api' });
  }
  return items;
}

/**
 * Reads an issue's comment thread (and its labels and body) from a forge's REST API, following `Link: rel="next"`:
 * GitHub and Gitea `GET {api}/repos/{owner}/{name}/issues/{n}/comments?per_page=N`, GitLab
 * `GET {api}/projects/{url-encoded path}/issues/{iid}/notes?per_page=N&sort=asc&order_by=created_at`.
 * For a GitHub or Gitea pull request (the issue has `pull_request`), also its submitted reviews,
 * `GET {api}/repos/{owner}/{name}/pulls/{n}/reviews?per_page=N`.
 */
export async function fetchIssueThread(options: FetchThreadOptions): Promise<FetchedThread> {
  const { repo, issue } = options;
  if (!Number.isInteger(issue) || issue < 1) throw new SfError('SF_E_USAGE', `--issue "${issue}" is not an issue number`, { hint: 'e.g. --issue 42' });
  const perPage = options.perPage ?? 100;
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) throw new SfError('SF_E_USAGE', `--per-page ${perPage} is not between 1 and 100`, { hint: 'GitHub, Gitea and GitLab serve at most 100 per page' });
  if (options.maxWaitMs !== undefined && !(options.maxWaitMs >= 0)) throw new SfError('SF_E_USAGE', '--max-wait must be zero or more seconds', { hint: 'e.g. --max-wait 120' });
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  if (!Number.isSafeInteger(maxPages) || maxPages < 1) throw new SfError('SF_E_USAGE', `--max-pages ${maxPages} is not a positive whole number`, { hint: `e.g. --max-pages ${DEFAULT_MAX_PAGES * 2}` });
  let api: URL;
  try {
    api = new URL(options.api);
  } catch (e) {
    throw new SfError('SF_E_USAGE', `--api "${options.api}" is not a URL`, { hint: 'e.g. --api https://api.github.com', cause: e });
  }
  if (api.protocol !== 'https:' && api.protocol !== 'http:') throw new SfError('SF_E_USAGE', `--api must be http(s), not ${api.protocol}`, { hint: 'e.g. --api https://api.github.com' });
  if (options.token && api.protocol === 'http:' && !isLoopbackHost(api.hostname)) {
    throw new SfError('SF_E_USAGE', `refusing to send a token over plain http to ${api.host}`, { hint: 'use an https:// API URL' });
  }
  const platform = choosePlatform(options.platform, api);
  const endpoints = issueEndpoints(platform, api, repo, issue, perPage, options.mergeRequest);
  const waits: WaitAdvice[] = [];
  const policy: RequestPolicy = {
    token: options.token,
    authScheme: endpoints.authScheme,
    apiExample: endpoints.example,
    maxWaitMs: options.maxWaitMs ?? 60_000,
    maxAttempts: 4,
    sleep: options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
    now: options.now ?? Date.now,
    timeoutMs: options.timeoutMs ?? REQUEST_TIMEOUT_MS,
    maxBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
    onWait: (a) => {
      waits.push(a);
      options.onWait?.(a);
    },
  };
  const pager: Pager = { policy, platform, origin: api.origin, maxPages, last: null, pages: 0 };
  const comments = await readListing(endpoints.firstPage, 'comments', pager);
  let labels: string[] | null = null;
  let body: string | null = null;
  let author: string | undefined;
  let reviews: unknown[] = [];
  if (options.labels !== false) {
    if (pager.last) await pace(pager.last, policy);
    const res = await getJson(endpoints.issue, policy);
    pager.last = res.headers;
    const json = (typeof res.json === 'object' && res.json !== null ? res.json : {}) as IssueJson;
    labels = json.labels === undefined ? null : labelsOfIssue(json.labels, res.url, platform);
    const text = platform === 'gitlab' ? json.description : json.body;
    body = typeof text === 'string' && text !== '' ? text : null;
    author = loginOf(platform === 'gitlab' ? json.author : json.user);
    // a pull request: REVIEWER is written "on the pull request" (spec 4.1), often as a review
    if (endpoints.reviews && typeof json.pull_request === 'object' && json.pull_request !== null) {
      reviews = (await readListing(endpoints.reviews, 'reviews', pager)).filter((r) => (r as { state?: unknown } | null)?.state !== 'PENDING');
    }
  }
  // reviews after the comments: numbered as their place in `comments`, read in date order with them
  appendAll(comments, reviews);
  return { api: withoutTrailingSlashes(api.toString()), platform, repo, issue, ...(options.mergeRequest ? { mergeRequest: true } : {}), comments, reviews: reviews.length, labels, body, ...(author ? { author } : {}), pages: pager.pages, waits };
}
