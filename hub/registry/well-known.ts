import type { ReleaseRecord, SkitRecord } from '../storage/ports.js';
import { releaseUrls } from './urls.js';

/**
 * The Agent Skills well-known discovery index, v0.2.0: one `archive` entry per contained skill
 * with the sha256 digest of the exact bytes served at its URL (generic clients drop an entry whose
 * digest does not match). Each archive holds the skill projection with SKILL.md at its root.
 *
 * Skills with `default_enabled: false` are left out: a generic client cannot keep a skill
 * installed but disabled, and Forge projects only enabled skills to hosts without a native
 * switch. They stay downloadable at their per-skill URLs.
 */
export const DISCOVERY_SCHEMA_V2 = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

export interface WellKnownEntry {
  name: string;
  description: string;
  type: 'archive';
  url: string;
  digest: string;
}

export interface WellKnownIndex {
  $schema: typeof DISCOVERY_SCHEMA_V2;
  skills: WellKnownEntry[];
}

/** The index's name rule (1-64 of [a-z0-9-], no edge or double hyphen); other names would be dropped by clients. */
const INDEX_NAME = /^(?!-)(?!.*--)[a-z0-9-]{1,64}(?<!-)$/;
const MAX_DESCRIPTION = 1024;

function entriesOf(base: string, release: ReleaseRecord): WellKnownEntry[] {
  return release.skills
    .filter((s) => s.defaultEnabled && INDEX_NAME.test(s.name))
    .map((s) => ({
      name: s.name,
      description: (s.description || `${s.id} from Forge`).slice(0, MAX_DESCRIPTION),
      type: 'archive' as const,
      url: releaseUrls.skillArchive(base, release.skitId, release.version, s.name),
      digest: `sha256:${s.archiveSha256}`,
    }));
}

/** The index of one release (served below the release URL and, for the latest one, the SKIT URL). */
export function releaseIndex(base: string, release: ReleaseRecord): WellKnownIndex {
  return { $schema: DISCOVERY_SCHEMA_V2, skills: entriesOf(base, release) };
}

/**
 * The hub-wide index over the latest release of every listed SKIT. Clients key skills by name,
 * so a name appears once: SKITs are taken in order of creation (then id), and a skill whose name
 * an earlier SKIT already uses is left out here. It stays installable through its own SKIT's index
 * (`/s/<owner>/<name>/.well-known/agent-skills/index.json`).
 */
export function hubIndex(base: string, listed: readonly { skit: SkitRecord; release: ReleaseRecord }[]): WellKnownIndex {
  const ordered = [...listed].sort((a, b) => a.skit.createdAt.localeCompare(b.skit.createdAt) || a.skit.id.localeCompare(b.skit.id));
  const taken = new Set<string>();
  const skills: WellKnownEntry[] = [];
  for (const { release } of ordered) {
    for (const entry of entriesOf(base, release)) {
      if (taken.has(entry.name)) continue;
      taken.add(entry.name);
      skills.push(entry);
    }
  }
  return { $schema: DISCOVERY_SCHEMA_V2, skills };
}
