import { mkdir } from 'node:fs/promises';
import { SfError } from '../errors/index.js';
import { archiveUrlResolver } from './archive.js';
import { gitResolver } from './git.js';
import { localResolver } from './local.js';
import { redactText } from './redact.js';
import { skillUrlResolver } from './skill-url.js';
import { SCRATCH_MODE, type ResolvedSource, type ResolveOptions, type SourceResolver } from './types.js';

export type { ResolvedSource, ResolveOptions, SourceResolver, SourceKind, SourceLimits, SynthesizedDescriptor } from './types.js';
export { DEFAULT_LIMITS } from './types.js';
export { fingerprintOf, provisionalIdOf, gitIdentityKey, canonicalUrl, PROVISIONAL_PREFIX, PROVISIONAL_HEX_LENGTH } from './identity.js';
export { redactText, redactUrl } from './redact.js';
export { withGitRef } from './git-spec.js';
export { DISCOVERY_LOCATIONS } from './discover.js';
export { describeTree, synthesizeDescriptor } from './describe.js';

/**
 * The resolver chain, first match wins:
 *
 * 1. local paths (`localResolver`): explicit paths and anything that exists relative to `cwd` —
 *    an existing directory `owner/name` beats a hub id of the same spelling;
 * 2. plug-ins from `options.resolvers`, in the order given (the hub registry adds `owner/name[@version]`
 *    and its release URLs here, so it claims its own URLs before the generic http resolvers);
 * 3. git (`<git-url>[#<ref>][:<subpath>]`), archive URLs (.zip/.tar/.tar.gz/.tgz), then any other
 *    http(s) URL as a SKILL.md (or a sniffed archive).
 *
 * A plug-in never needs to edit the built-ins: it implements `SourceResolver`, computes its own
 * identity (or reuses `describeTree` to discover skills and synthesize a descriptor) and returns a
 * `ResolvedSource` whose `dir` lies inside `options.workDir`.
 */
export async function resolverChain(options: Pick<ResolveOptions, 'cwd' | 'env' | 'resolvers'>): Promise<SourceResolver[]> {
  return [localResolver(options.cwd, options.env), ...(await pluginResolvers(options)), gitResolver, archiveUrlResolver, skillUrlResolver];
}

const pluginResolvers = async (options: Pick<ResolveOptions, 'resolvers'>): Promise<SourceResolver[]> =>
  typeof options.resolvers === 'function' ? options.resolvers() : (options.resolvers ?? []);

/**
 * Resolves a `<source>` string to a materialized local tree, ready for validation and install.
 * Throws SfError: SF_E_SOURCE (unrecognized; the hint lists accepted forms), SF_E_NOT_FOUND,
 * SF_E_FETCH, SF_E_GIT, SF_E_AUTH, SF_E_LIMIT, SF_E_VALIDATION (discovery conflicts), or the
 * archive codes. No message, `canonical` or `data` ever holds credentials.
 *
 * @example await resolveSource('https://git.example.com/team/kit.git#v1.2.0:skills', { cwd, workDir })
 */
export async function resolveSource(input: string, options: ResolveOptions): Promise<ResolvedSource> {
  const source = input.trim();
  if (source === '') {
    throw new SfError('SF_E_SOURCE', 'the source is empty', { hint: acceptedForms(await resolverChain(options)) });
  }
  // a local path never needs the plug-ins (a provider function, e.g. the hub client and its stored
  // logins, is not called), nor workDir unless it is an archive (materializeArchive makes it)
  const local = localResolver(options.cwd, options.env);
  if (local.matches(source)) return local.resolve(source, options);
  await mkdir(options.workDir, { recursive: true, mode: SCRATCH_MODE });
  const chain = await resolverChain(options);
  for (const resolver of chain) {
    if (resolver.matches(source)) return resolver.resolve(source, options);
  }
  throw new SfError('SF_E_SOURCE', `"${redactText(source)}" is not a path, URL or source form Forge understands`, {
    hint: acceptedForms(chain),
  });
}

function acceptedForms(chain: SourceResolver[]): string {
  const forms = chain.flatMap((r) => r.forms ?? [r.name]);
  return `accepted sources: ${forms.join('; ')}`;
}
