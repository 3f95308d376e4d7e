import { out, printJson, printTable } from '../../output/print.js';
import { hubTargetFor } from './hub-target.js';
import type { RemoteSkit, SkitPage } from '../../../core/hub-client/index.js';

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
  // keyset pages (`after` = the last id seen): SKITs published meanwhile neither repeat nor go missing
  for (;;) {
    const page = await client.getJson<SkitPage>(`/api/v1/skits?${params}`, skitPageShape);
    skits.push(...page.skits);
    if (page.skits.length === 0) break;
    if (page.next) params.set('after', page.next);
    // a hub from before keyset paging: offsets
    else if (page.total !== undefined && skits.length < page.total) params.set('offset', String(skits.length));
    else break;
  }
  if (a.json) return printJson({ hub: client.target.url, skits });
  if (skits.length === 0) return out(`no SKITs found on ${client.target.url}`);
  printTable(
    ['SKIT', 'LATEST', 'VISIBILITY', 'SKILLS', 'DESCRIPTION'],
    skits.map((s) => [s.id, s.latestVersion ?? '-', s.visibility, s.skills.join(','), `${s.deprecated ? '[deprecated] ' : ''}${s.description}`]),
  );
}
