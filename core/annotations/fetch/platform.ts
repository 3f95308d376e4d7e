import { SfError } from '../../errors/index.js';

/**
 * The forges `sf forge fetch` reads. GitHub and Gitea share one REST shape
 * (`/repos/{owner}/{name}/issues/{n}/comments`, `Authorization: token …`); GitLab v4 has its own
 * (`/projects/{id}/issues/{iid}/notes`, `Authorization: Bearer …`).
 */
export const FETCH_PLATFORMS = ['github', 'gitea', 'gitlab'] as const;
export type FetchPlatform = (typeof FETCH_PLATFORMS)[number];

/** Where one issue's comments and labels are, and how a token is presented. */
export interface IssueEndpoints {
  platform: FetchPlatform;
  /** the first page of comments (notes) */
  firstPage: string;
  /** the issue itself, for its labels and body */
  issue: string;
  /** the reviews of the pull request with this number, when the issue is one (GitHub, Gitea) */
  reviews?: string;
  /** the scheme of the Authorization header */
  authScheme: 'token' | 'Bearer';
  /** an API root of this platform, for hints */
  example: string;
}

/** One path segment of an owner, group or project name; `.` and `..` would move the URL path. */
const SEGMENT = /^(?!\.+$)[A-Za-z0-9_.-]+$/;

/**
 * `text` without its trailing slashes. A scan from the end: `/\/+$/` retries at every slash of a run
 * that does not end the text, which is quadratic in the run.
 */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}

/** gitlab for an `/api/v4` root or gitlab.com, gitea for an `/api/v1` root, else github. */
export function detectFetchPlatform(api: URL): FetchPlatform {
  const path = withoutTrailingSlashes(api.pathname);
  if (path.endsWith('/api/v4') || api.hostname === 'gitlab.com') return 'gitlab';
  return path.endsWith('/api/v1') ? 'gitea' : 'github';
}

/** `--platform` as given (checked, for callers of the library), else detected from the API URL. */
export function choosePlatform(given: string | undefined, api: URL): FetchPlatform {
  if (given === undefined) return detectFetchPlatform(api);
  if ((FETCH_PLATFORMS as readonly string[]).includes(given)) return given as FetchPlatform;
  throw new SfError('SF_E_USAGE', `--platform "${given}" is not a platform fetch reads`, { hint: `use one of ${FETCH_PLATFORMS.join(', ')}, or leave it out to detect it from --api` });
}

function checkRepo(platform: FetchPlatform, repo: string): void {
  const segments = repo.split('/');
  const named = segments.every((s) => SEGMENT.test(s));
  if (platform === 'gitlab') {
    if (/^\d+$/.test(repo) || (segments.length >= 2 && named)) return;
    throw new SfError('SF_E_USAGE', `--repo "${repo}" is not a GitLab project path or ID`, { hint: 'e.g. --repo group/project, --repo group/subgroup/project or --repo 42' });
  }
  if (segments.length === 2 && named) return;
  const nested = segments.length > 2 && named ? '; a group/subgroup/project path is GitLab’s: add --platform gitlab, or use the /api/v4 API root' : '';
  throw new SfError('SF_E_USAGE', `--repo "${repo}" is not owner/name`, { hint: `e.g. --repo octo-org/octo-repo${nested}` });
}

/** The API root without trailing slashes; GitLab's must have a path (its REST API is never at the web root). */
function apiRoot(platform: FetchPlatform, api: URL): string {
  const root = withoutTrailingSlashes(api.toString());
  if (platform === 'gitlab' && withoutTrailingSlashes(api.pathname) === '') {
    throw new SfError('SF_E_USAGE', `--api ${root} is GitLab’s web root, not its REST API (/api/v4)`, { hint: `e.g. --api ${api.origin}/api/v4` });
  }
  return root;
}

/**
 * Checks --repo for the platform and builds the issue's URLs under the API root. A GitLab merge
 * request (`mergeRequest`) has its own notes and its description where an issue has them; on
 * GitHub and Gitea a pull request is an issue, read by its number.
 */
export function issueEndpoints(platform: FetchPlatform, api: URL, repo: string, issue: number, perPage: number, mergeRequest = false): IssueEndpoints {
  checkRepo(platform, repo);
  if (mergeRequest && platform !== 'gitlab') {
    throw new SfError('SF_E_USAGE', `--merge-request is GitLab's; on ${platform} a pull request is an issue`, { hint: `use --issue ${issue}: its reviews are read too` });
  }
  const root = apiRoot(platform, api);
  if (platform === 'gitlab') {
    // one path parameter: the full path URL-encoded (`group%2Fsub%2Fproject`), or the numeric ID
    const base = `${root}/projects/${encodeURIComponent(repo)}/${mergeRequest ? 'merge_requests' : 'issues'}/${issue}`;
    return { platform, firstPage: `${base}/notes?per_page=${perPage}&sort=asc&order_by=created_at`, issue: base, authScheme: 'Bearer', example: 'https://gitlab.com/api/v4' };
  }
  const [owner, name] = repo.split('/').map(encodeURIComponent);
  const base = `${root}/repos/${owner}/${name}/issues/${issue}`;
  const reviews = `${root}/repos/${owner}/${name}/pulls/${issue}/reviews?per_page=${perPage}`;
  return { platform, firstPage: `${base}/comments?per_page=${perPage}`, issue: base, reviews, authScheme: 'token', example: platform === 'gitea' ? 'https://gitea.example/api/v1' : 'https://api.github.com' };
}
