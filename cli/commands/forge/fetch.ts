import { command, flag, oneOf, optional, string } from 'cmd-ts';
import { integer, option } from '../../args.js';
import { writeFile } from 'node:fs/promises';
import { SfError } from '../../../core/errors/index.js';
import { FETCH_PLATFORMS } from '../../../core/annotations/fetch/platform.js';
import { err, out, printJson, printTable } from '../../output/print.js';
import { headline, statusText, where } from './summary.js';
import { sanitize } from '../../output/style.js';

/**
 * A platform's own variables, each read only for that platform's host, so its credential is never
 * sent to another host.
 */
const HOST_TOKENS: Record<string, string[]> = { 'api.github.com': ['GITHUB_TOKEN', 'GH_TOKEN'], 'gitlab.com': ['GITLAB_TOKEN'] };

/**
 * The token comes from FORGE_TOKEN, or the variable named by --token-env; else GITHUB_TOKEN /
 * GH_TOKEN for api.github.com, GITLAB_TOKEN for gitlab.com (see HOST_TOKENS).
 */
function tokenFor(api: string, tokenEnv: string | undefined): string | undefined {
  if (tokenEnv !== undefined) {
    const value = process.env[tokenEnv];
    if (!value) throw new SfError('SF_E_USAGE', `--token-env ${tokenEnv}: that environment variable is not set`, { hint: `export ${tokenEnv}=... or drop --token-env` });
    return value;
  }
  if (process.env.FORGE_TOKEN) return process.env.FORGE_TOKEN;
  let host = '';
  try {
    host = new URL(api).hostname;
  } catch {
    host = ''; // the fetcher reports the bad URL
  }
  for (const name of HOST_TOKENS[host] ?? []) if (process.env[name]) return process.env[name];
  return undefined;
}

export const fetchCommand = command({
  name: 'fetch',
  description: 'Read an issue thread (body, comments, labels; a pull request’s reviews) from a forge REST API (GitHub, Gitea, GitLab) and list its annotations',
  args: {
    api: option({ long: 'api', type: string, description: 'API root, e.g. https://api.github.com, https://gitea.example/api/v1 or https://gitlab.com/api/v4' }),
    platform: option({ long: 'platform', type: optional(oneOf(FETCH_PLATFORMS)), description: 'github, gitea or gitlab (default: gitlab for an /api/v4 root or gitlab.com, gitea for /api/v1, else github)' }),
    repo: option({ long: 'repo', type: string, description: 'owner/name (GitLab: group/subgroup/project or the project ID)' }),
    issue: option({ long: 'issue', type: optional(integer({ min: 1 })), description: 'issue or pull-request number (GitLab: the issue IID)' }),
    mergeRequest: option({ long: 'merge-request', type: optional(integer({ min: 1 })), description: 'GitLab: a merge request IID (its notes and description), instead of --issue' }),
    tokenEnv: option({ long: 'token-env', type: optional(string), description: 'environment variable holding the token (default FORGE_TOKEN)' }),
    maxWait: option({ long: 'max-wait', type: optional(integer()), description: 'longest rate-limit wait in seconds (default 60)' }),
    perPage: option({ long: 'per-page', type: optional(integer({ min: 1, max: 100 })), description: 'page size (default 100)' }),
    maxPages: option({ long: 'max-pages', type: optional(integer({ min: 1 })), description: 'give up after this many pages (default 100)' }),
    outFile: option({ long: 'out', short: 'o', type: optional(string), description: 'also write the thread JSON (input for parse/check) to this file' }),
    json: flag({ long: 'json', description: 'print {api, platform, repo, issue, mergeRequest?, labels, body, author?, comments} as JSON' }),
  },
  handler: async ({ api, platform, repo, issue, mergeRequest, tokenEnv, maxWait, perPage, maxPages, outFile, json }) => {
    if ((issue === undefined) === (mergeRequest === undefined)) {
      throw new SfError('SF_E_USAGE', issue === undefined ? 'name the thread: --issue N (or, on GitLab, --merge-request N)' : 'give --issue or --merge-request, not both', { hint: 'e.g. --issue 42, or --merge-request 7 for a GitLab merge request' });
    }
    const core = await import('../../../core/annotations/index.js');
    const thread = await core.fetchIssueThread({
      api,
      ...(platform !== undefined ? { platform } : {}),
      repo,
      issue: (issue ?? mergeRequest)!,
      ...(mergeRequest !== undefined ? { mergeRequest: true } : {}),
      token: tokenFor(api, tokenEnv),
      ...(maxWait !== undefined ? { maxWaitMs: maxWait * 1000 } : {}),
      ...(perPage !== undefined ? { perPage } : {}),
      ...(maxPages !== undefined ? { maxPages } : {}),
      // with --json, stderr holds nothing but a JSON error object
      onWait: json ? undefined : (a) => err(`waiting ${Math.ceil(a.ms / 1000)} s ${a.cause === 'rate-limit' ? 'for the rate limit' : 'to retry after a server error'} (${sanitize(a.reason)})`),
    });
    const doc = { api: thread.api, platform: thread.platform, repo: thread.repo, issue: thread.issue, ...(thread.mergeRequest ? { mergeRequest: true } : {}), labels: thread.labels, body: thread.body, ...(thread.author ? { author: thread.author } : {}), comments: thread.comments };
    if (outFile) await writeFile(outFile, JSON.stringify(doc, null, 2) + '\n');
    if (json) {
      printJson(doc);
      return;
    }
    // the document parse and check read: the issue body first, then the comments
    const parsed = core.parseThread(core.readThreadDocument(doc).comments);
    const body = thread.body !== null ? ` and the ${thread.mergeRequest ? 'merge request description' : 'issue body'}` : '';
    const reviews = thread.reviews ? ` (${thread.reviews} of them pull request review${thread.reviews === 1 ? '' : 's'})` : '';
    out(`${thread.comments.length} comments${reviews}${body} in ${thread.pages} page${thread.pages === 1 ? '' : 's'} from ${thread.repo}${thread.mergeRequest ? '!' : '#'}${thread.issue}; labels: ${thread.labels ? JSON.stringify(thread.labels) : '(none read)'}`);
    if (parsed.annotations.length) printTable(['TAG', 'STATUS', 'WHERE', 'FIELDS'], parsed.annotations.map((a) => [a.tag, statusText(a), where(a), headline(a)]));
  },
});
