/**
 * The hub's public URL scheme for releases. Release URLs are immutable: the bytes behind a
 * versioned URL never change (releases cannot be overwritten). `base` is the configured public
 * base URL without a trailing slash, or '' for root-relative links.
 */
const seg = (s: string) => encodeURIComponent(s);

export const releaseUrls = {
  /** the extension-less release URL; generic clients find the per-release well-known index below it */
  release: (base: string, skitId: string, version: string) => `${base}/r/${skitId}/${seg(version)}`,
  archive: (base: string, skitId: string, version: string) => `${base}/r/${skitId}/${seg(version)}.tgz`,
  skillArchive: (base: string, skitId: string, version: string, skill: string) => `${base}/r/${skitId}/${seg(version)}/skills/${seg(skill)}.tgz`,
  skillFile: (base: string, skitId: string, version: string, skill: string, path: string) =>
    `${base}/r/${skitId}/${seg(version)}/skills/${seg(skill)}/${path.split('/').map(seg).join('/')}`,
  /** the per-SKIT page whose well-known index always lists the latest release */
  skit: (base: string, skitId: string) => `${base}/s/${skitId}`,
  api: (base: string, skitId: string) => `${base}/api/v1/skits/${skitId}`,
};

/** Where `/.well-known/agent-skills/index.json` lives below a page URL. */
export const wellKnownIndex = (pageUrl: string) => `${pageUrl}/.well-known/agent-skills/index.json`;
