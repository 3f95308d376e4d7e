import type { Diagnostic, Severity } from '../errors/diagnostic.js';
import type { DeclaredCapabilities } from './descriptor.js';
import type { Locate } from './descriptor-source.js';
import type { FileIndex, LayoutFile } from './file-index.js';
import { diagnostic, type RuleCode } from './rules.js';
import { checkRelativePath, PATH_PROBLEM_TEXT } from './safe-path.js';

/**
 * Finds what in a SKIT can run or change an agent's behaviour beyond instructions (executables,
 * hook declarations, MCP server declarations) and checks it against `capabilities` in the
 * descriptor: undeclared findings and declarations of missing files are errors. Pure.
 */

export interface DetectedCapabilities {
  executables: string[];
  hooks: string[];
  mcp: string[];
  /** config files that could declare hooks or MCP servers but do not parse */
  unparsable: string[];
}

/** Reads (part of) a file: the full text for config files, at least the first bytes otherwise. */
export type ReadContent = (path: string) => Uint8Array | string | undefined;

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const parent = (p: string) => {
  const cut = p.lastIndexOf('/');
  return cut === -1 ? '' : base(p.slice(0, cut));
};
const isClaudeSettings = (p: string) => parent(p) === '.claude' && /^settings.*\.json$/.test(base(p));
const isPluginManifest = (p: string) => parent(p) === '.claude-plugin' && base(p) === 'plugin.json';
const isOpencodeConfig = (p: string) => /^opencode\.jsonc?$/.test(base(p));
const isCodexConfig = (p: string) => parent(p) === '.codex' && base(p) === 'config.toml';

/** Whether validation needs a file's full text ('full') or only its first bytes ('head'). */
export function contentNeed(path: string): 'full' | 'head' {
  const b = base(path);
  if (path === 'README.md' || b === 'SKILL.md' || b === 'skill.md') return 'full';
  return mayBeAgentConfig(b) && (isClaudeSettings(path) || isPluginManifest(path) || isOpencodeConfig(path) || isCodexConfig(path)) ? 'full' : 'head';
}

/** False for most file names at once: every agent config file name starts with s, p, o or c. */
function mayBeAgentConfig(baseName: string): boolean {
  const first = baseName.charCodeAt(0);
  return first === 0x73 /* s */ || first === 0x70 /* p */ || first === 0x6f /* o */ || first === 0x63 /* c */;
}

export { HEAD_BYTES } from './head-bytes.js';

const text = (c: Uint8Array | string | undefined) => (c === undefined ? '' : typeof c === 'string' ? c : Buffer.from(c).toString('utf8'));

function startsWithShebang(c: Uint8Array | string | undefined): boolean {
  if (c === undefined) return false;
  return typeof c === 'string' ? c.startsWith('#!') : c.length >= 2 && c[0] === 0x23 && c[1] === 0x21;
}

function jsonKeys(c: Uint8Array | string | undefined): Set<string> | 'unparsable' {
  try {
    const v: unknown = JSON.parse(text(c));
    return new Set(typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.keys(v) : []);
  } catch (e) {
    if (e instanceof SyntaxError) return 'unparsable';
    throw e;
  }
}

/** True when a segment named `dirName` sits directly below one of `roots` ('' = the SKIT root). */
function inDeclarationDir(path: string, dirName: string, roots: ReadonlySet<string>): boolean {
  const segs = path.split('/');
  for (let i = 0; i < segs.length - 1; i++) {
    if (segs[i] === dirName && roots.has(segs.slice(0, i).join('/'))) return true;
  }
  return false;
}

/**
 * Lists executables (exec bit or `#!`), hook declarations (`hooks/` at the root or in a skill,
 * `hooks.json`, `.claude/settings*.json` or `.claude-plugin/plugin.json` with a hooks key, a
 * SKILL.md with a hooks key) and MCP declarations (`mcp/` at the root or in a skill, `.mcp.json`,
 * `mcp.json`, a plugin manifest with mcpServers, `opencode.json` with mcp, `.codex/config.toml`
 * with mcp_servers).
 */
export function detectCapabilities(
  files: readonly LayoutFile[],
  read: ReadContent,
  skillPaths: readonly string[],
  frontmatterHookFiles: readonly string[] = [],
): DetectedCapabilities {
  const roots = new Set(['', ...skillPaths]);
  const found: DetectedCapabilities = { executables: [], hooks: [], mcp: [], unparsable: [] };
  for (const f of files) {
    const b = base(f.path);
    if (f.mode === 'exec' || startsWithShebang(read(f.path))) found.executables.push(f.path);
    // the substring tests skip the segment-by-segment check for the many files that cannot match
    let hook = b === 'hooks.json' || (f.path.includes('hooks/') && inDeclarationDir(f.path, 'hooks', roots));
    let mcp = b === '.mcp.json' || b === 'mcp.json' || (f.path.includes('mcp/') && inDeclarationDir(f.path, 'mcp', roots));
    // agent config files: only names that can be one are looked at any closer
    if (mayBeAgentConfig(b)) {
      if (isClaudeSettings(f.path) || isPluginManifest(f.path)) {
        const keys = jsonKeys(read(f.path));
        if (keys === 'unparsable') {
          found.unparsable.push(f.path);
          hook = true;
        } else {
          hook ||= keys.has('hooks');
          mcp ||= keys.has('mcpServers');
        }
      }
      if (isOpencodeConfig(f.path)) mcp ||= /"mcp"\s*:/.test(text(read(f.path)));
      if (isCodexConfig(f.path)) mcp ||= /^\s*\[mcp_servers[.\]]/m.test(text(read(f.path)));
    }
    if (hook) found.hooks.push(f.path);
    if (mcp) found.mcp.push(f.path);
  }
  for (const p of frontmatterHookFiles) if (!found.hooks.includes(p)) found.hooks.push(p);
  found.hooks.sort();
  return found;
}

const UNDECLARED: Record<keyof DeclaredCapabilities, [RuleCode, string]> = {
  executables: ['SKIT_EXECUTABLE_UNDECLARED', 'executable file (exec bit or #! line) is not declared in capabilities.executables'],
  hooks: ['SKIT_HOOK_UNDECLARED', 'hook declaration is not declared in capabilities.hooks'],
  mcp: ['SKIT_MCP_UNDECLARED', 'MCP server declaration is not declared in capabilities.mcp'],
};

/**
 * Compares findings with declarations. `undeclaredSeverity` is 'warning' for single-skill SKITs,
 * which have no descriptor to declare anything in.
 */
export function checkCapabilities(
  detected: DetectedCapabilities,
  declared: DeclaredCapabilities,
  index: FileIndex,
  locate: Locate,
  undeclaredSeverity: Severity = 'error',
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const p of detected.unparsable) {
    out.push(diagnostic('SKIT_CONFIG_UNPARSABLE', 'this agent configuration file is not valid JSON', { file: p }));
  }
  for (const kind of ['executables', 'hooks', 'mcp'] as const) {
    const declaredSet = new Set<string>();
    declared[kind].forEach((p, i) => {
      const where = locate(`/capabilities/${kind}/${i}`);
      const problem = checkRelativePath(p);
      if (problem) return void out.push(diagnostic('SKIT_CAPABILITY_PATH_UNSAFE', `capabilities.${kind} entry "${p}": ${PATH_PROBLEM_TEXT[problem]}`, where));
      declaredSet.add(p.normalize('NFC'));
      if (!index.has(p)) out.push(diagnostic('SKIT_CAPABILITY_MISSING', `capabilities.${kind} lists "${p}", which is not a file of the SKIT`, where));
    });
    const [code, message] = UNDECLARED[kind];
    // warnings are for SKITs without a README.md descriptor: a single skill, or Agent Skills discovered in a repository
    const hint =
      undeclaredSeverity === 'error' ? undefined : 'this SKIT has no README.md descriptor (its id is provisional); add one (`skit: 1`, id, skills, capabilities) to declare it';
    for (const p of detected[kind]) {
      if (!declaredSet.has(p.normalize('NFC'))) out.push(diagnostic(code, message, { file: p }, { severity: undeclaredSeverity, hint }));
    }
  }
  return out;
}
