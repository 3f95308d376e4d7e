import { SfError } from '../../../core/errors/index.js';
import { out, printJson, printTable } from '../../output/print.js';
import { hubTargetFor } from './hub-target.js';
import { withoutNulls } from '../../output/without-nulls.js';
import type { RemoteSkit, SkitPage } from '../../../core/hub-client/index.js';

/** 100 pages of 200: more than any hub lists today, few enough to end in seconds. */
export const MAX_REMOTE_PAGES = 100;

export interface RemoteListArgs {
  hub?: string;
  query?: string;
  owner?: string;
  tag?: string;
  json: boolean;
}

/** `sf skit list --remote`: the SKITs the hub lists to this user (public ones, plus their own unlisted and private ones). */
export async function listRemote(a: RemoteListArgs): Promise<void> {
  const { HubClient, skitPageShape } = await import('../../../core/hub-client/index.js');
  const client = new HubClient(await hubTargetFor(a.hub, false));
  const params = new URLSearchParams({ limit: '200' });
  if (a.query) params.set('q', a.query);
  if (a.owner) params.set('owner', a.owner);
  if (a.tag) params.set('tag', a.tag);
  const skits: RemoteSkit[] = [];
  const cursors = new Set<string>();
  // keyset pages (`after` = the last id seen): SKITs published meanwhile neither repeat nor go missing
  for (let pages = 1; ; pages++) {
    const path = `/api/v1/skits?${params}`;
    const page = await client.getJson<SkitPage>(path, skitPageShape);
    skits.push(...page.skits);
    if (page.skits.length === 0) break;
    const more = page.next !== undefined || (page.total !== undefined && skits.length < page.total);
    if (!more) break;
    // a hub that never stops paging (or pages in a circle) would keep this command running forever
    if (pages >= MAX_REMOTE_PAGES) {
      throw new SfError('SF_E_LIMIT', `the hub at ${client.target.url} listed more than ${MAX_REMOTE_PAGES} pages (${skits.length} SKITs) and offers more`, {
        hint: 'narrow the list with --query, --owner or --tag',
        data: { pages, skits: skits.length },
      });
    }
    if (page.next !== undefined) {
      if (cursors.has(page.next)) {
        throw new SfError('SF_E_FETCH', `the hub at ${client.target.url} answered ${path} with a next page it had already given ("${page.next}"): its paging goes in a circle`, {
          hint: 'the hub is broken; tell its operator, or narrow the list with --query, --owner or --tag',
          data: { url: client.url(path) },
        });
      }
      cursors.add(page.next);
      params.set('after', page.next);
    }
    // a hub from before keyset paging: offsets (they grow with every non-empty page)
    else params.set('offset', String(skits.length));
  }
  if (a.json) return printJson({ hub: client.target.url, skits: withoutNulls(skits) });
  if (skits.length === 0) return out(`no SKITs found on ${client.target.url}`);
  printTable(
    ['SKIT', 'LATEST', 'VISIBILITY', 'SKILLS', 'DESCRIPTION'],
    skits.map((s) => [s.id, s.latestVersion ?? '-', s.visibility, s.skills.join(','), `${s.deprecated ? '[deprecated] ' : ''}${s.description}`]),
  );
}
