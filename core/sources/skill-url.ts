import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SfError } from '../errors/index.js';
import { checkRelativePath } from '../skit/safe-path.js';
import { rejectVersion, resolveArchiveBytes, sniffArchive } from './archive.js';
import { synthesizeDescriptor } from './describe.js';
import { download } from './download.js';
import { skillNameOf } from './frontmatter.js';
import { canonicalUrl, identity, urlIdentityKey } from './identity.js';
import { limitsOf } from './limits.js';
import { redactUrl } from './redact.js';
import type { ResolvedSource, ResolveOptions, SourceResolver } from './types.js';

/**
 * Direct http(s) SKILL.md URLs, and the fallback for any other http(s) URL: the body is sniffed,
 * so an archive served without an extension is unpacked and anything else must be a SKILL.md.
 * A SKILL.md is materialized as `<name>/SKILL.md` (name from its frontmatter) under a fresh
 * directory in `workDir`, which becomes the SKIT root; the descriptor lists that one skill.
 */
export const skillUrlResolver: SourceResolver = {
  name: 'skill-url',
  forms: ['https://host/path/SKILL.md'],
  matches: (input) => /^https?:\/\//i.test(input),
  async resolve(input: string, options: ResolveOptions): Promise<ResolvedSource> {
    rejectVersion(input, options);
    const limits = limitsOf(options);
    const namedSkill = /(^|\/)SKILL\.md$/i.test(pathOf(input));
    const { bytes } = await download(input, {
      fetch: options.fetch ?? fetch,
      timeoutMs: limits.timeoutMs,
      maxRedirects: limits.maxRedirects,
      maxBytes: namedSkill ? limits.maxSkillBytes : Math.max(limits.maxSkillBytes, limits.maxArchiveBytes),
    });
    if (!namedSkill && sniffArchive(bytes)) return resolveArchiveBytes(bytes, input, options);
    if (bytes.length > limits.maxSkillBytes) {
      throw new SfError('SF_E_LIMIT', `${redactUrl(input)} is larger than the ${limits.maxSkillBytes}-byte SKILL.md limit`, {
        hint: 'a SKILL.md is a short instruction file; check the URL points at one (not at a large file or an endless response)',
      });
    }
    return materializeSkill(bytes, input, options);
  },
};

function pathOf(input: string): string {
  try {
    return new URL(input).pathname;
  } catch {
    return input; // an unparseable URL fails later in download() with SF_E_FETCH
  }
}

async function materializeSkill(bytes: Buffer, url: string, options: ResolveOptions): Promise<ResolvedSource> {
  const shown = redactUrl(url);
  const name = skillNameOf(bytes.toString('utf8'));
  if (name === undefined) {
    throw new SfError('SF_E_SOURCE', `${shown} is not a SKILL.md with a frontmatter "name", nor an archive`, {
      hint: 'a skill URL must serve a SKILL.md that starts with ---, name: <name>, description: ..., ---',
      data: { url: shown },
    });
  }
  if (name.includes('/') || checkRelativePath(name) !== null) {
    throw new SfError('SF_E_UNSAFE_PATH', `the skill name "${name}" in ${shown} cannot be a directory name`, {
      hint: 'skill names are lowercase letters, digits and hyphens',
      data: { url: shown },
    });
  }
  const root = await mkdtemp(join(options.workDir, 'skill-'));
  await mkdir(join(root, name));
  // the exact bytes served: hashes and validation see what the server sent
  await writeFile(join(root, name, 'SKILL.md'), bytes);
  const canonical = canonicalUrl(url, { keepQuery: true });
  const id = identity(urlIdentityKey(canonical));
  return {
    kind: 'skill-url',
    canonical,
    ...id,
    dir: root,
    descriptor: synthesizeDescriptor(id.provisionalId, [{ name, path: name }]),
  };
}
