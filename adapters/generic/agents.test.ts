import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../../core/errors/index.js';
import { adapterFixture, type AdapterFixture } from '../../test-support/adapter-fixture.js';
import { allAdapters, findAdapter, getAdapter, parseAgentOption } from '../index.js';
import { createGenericAdapter } from './adapter.js';
import { GENERIC_AGENTS } from './agents.js';
import { expandAgentPath } from './paths.js';

/** Every agent id of the table in research/skills-anchors.md §2 (Vercel `skills` 1.7.4). */
const ANCHOR_AGENTS = [
  'aider-desk', 'amp', 'replit', 'universal', 'antigravity', 'antigravity-cli', 'astrbot', 'autohand-code', 'augment', 'bob',
  'claude-code', 'openclaw', 'cline', 'codex', 'dexto', 'fx', 'kimi-code-cli', 'loaf', 'pi', 'sarvam-code', 'warp', 'zed',
  'codearts-agent', 'codebuddy', 'codemaker', 'codestudio', 'command-code', 'continue', 'cortex', 'crush', 'cursor', 'deepagents',
  'devin', 'droid', 'eve', 'firebender', 'forgecode', 'gemini-cli', 'github-copilot', 'goose', 'grok', 'hermes-agent',
  'inference-sh', 'jazz', 'junie', 'iflow-cli', 'kilo', 'kimchi', 'kiro-cli', 'kode', 'lingma', 'mcpjam', 'minimax-code',
  'mistral-vibe', 'moxby', 'mux', 'opencode', 'openhands', 'ona', 'posit-assistant', 'qoder', 'qoder-cn', 'qwen-code',
  'reasonix', 'rovodev', 'roo', 'tabnine-cli', 'terramind', 'tinycloud', 'trae', 'trae-cn', 'windsurf', 'zcode', 'zencoder',
  'zenflow', 'neovate', 'pochi', 'promptscript', 'adal',
];

describe('adapters/generic: the agents table and the generic adapter', () => {
  it('covers every agent of the anchor table, each reachable by id', () => {
    const ids = new Set(GENERIC_AGENTS.map((a) => a.id));
    assert.deepEqual(ANCHOR_AGENTS.filter((id) => !ids.has(id)), []);
    for (const id of ANCHOR_AGENTS) assert.equal(findAdapter(id)?.id, id, id);
    assert.equal(GENERIC_AGENTS.length, ids.size, 'ids are unique');
  });

  it('resolves aliases and rejects unknown names with the list of valid ones', () => {
    assert.equal(getAdapter('claude').id, 'claude-code');
    assert.equal(getAdapter('Gemini').id, 'gemini-cli');
    assert.equal(getAdapter('generic').id, 'universal');
    assert.throws(() => getAdapter('notepad'), (e: unknown) => isSfError(e, 'SF_E_UNKNOWN_AGENT') && /cursor/.test(e.hint ?? ''));
    assert.deepEqual(parseAgentOption('codex, claude,codex').adapters.map((a) => a.id), ['codex', 'claude-code']);
    assert.equal(parseAgentOption('all').all, true);
    assert.ok(allAdapters().length >= ANCHOR_AGENTS.length);
  });

  it('expands home, XDG and override variables in skill directories', () => {
    const ctx = { home: '/h', env: {} };
    assert.equal(expandAgentPath('~/.cursor/skills', ctx), '/h/.cursor/skills');
    assert.equal(expandAgentPath('${XDG_CONFIG_HOME:-~/.config}/agents/skills', ctx), '/h/.config/agents/skills');
    assert.equal(expandAgentPath('${XDG_CONFIG_HOME:-~/.config}/agents/skills', { home: '/h', env: { XDG_CONFIG_HOME: '/x' } }), '/x/agents/skills');
    assert.equal(expandAgentPath('${CLAUDE_CONFIG_DIR:-~/.claude}/skills', { home: '/h', env: { CLAUDE_CONFIG_DIR: '/c' } }), '/c/skills');
  });

  describe('generic adapter', () => {
    let fx: AdapterFixture;
    beforeEach(async () => (fx = await adapterFixture()));
    afterEach(() => fx.cleanup());
    const windsurf = () => createGenericAdapter(GENERIC_AGENTS.find((a) => a.id === 'windsurf')!);

    it('projects only enabled skills and follows enablement changes', async () => {
      const a = windsurf();
      const ctx = fx.ctx('project');
      const rec = await a.project(fx.request(['beta']), ctx);
      assert.equal(rec.skillRoot, join(fx.project, '.windsurf', 'skills'));
      assert.deepEqual(await readdir(rec.skillRoot), ['alpha']);
      const both = await a.setEnablement(fx.request(), rec, ctx);
      assert.deepEqual((await readdir(rec.skillRoot)).sort(), ['alpha', 'beta']);
      const onlyBeta = await a.setEnablement(fx.request(['alpha']), both, ctx);
      assert.deepEqual(await readdir(rec.skillRoot), ['beta']);
      assert.deepEqual(await a.diagnose(fx.request(['alpha']), onlyBeta, ctx), []);
      await a.unproject(onlyBeta, ctx);
      assert.deepEqual(await readdir(rec.skillRoot), []);
    });

    it('never creates a project that is gone (SF_E_NOT_FOUND), but a new skill root inside an existing project is made', async () => {
      const a = windsurf();
      const ctx = fx.ctx('project');
      const rec = await a.project(fx.request(), ctx);
      await rm(fx.project, { recursive: true });
      await assert.rejects(a.setEnablement(fx.request(['beta']), rec, ctx), (e: unknown) => isSfError(e, 'SF_E_NOT_FOUND'));
      await assert.rejects(a.project(fx.request(), ctx), (e: unknown) => isSfError(e, 'SF_E_NOT_FOUND'));
      await a.unproject(rec, ctx);
      assert.equal(existsSync(fx.project), false);
    });

    it('uses the global directory for the user scope and detects the agent by its home folder', async () => {
      const a = windsurf();
      const ctx = fx.ctx('user');
      assert.equal(a.skillRoot(ctx), join(fx.home, '.codeium', 'windsurf', 'skills'));
      assert.equal((await a.detect(ctx)).present, false);
      await mkdir(join(fx.home, '.codeium', 'windsurf'), { recursive: true });
      assert.deepEqual((await a.detect(ctx)).evidence, [`found ${join(fx.home, '.codeium', 'windsurf')}`]);
      const rec = await a.project(fx.request(), ctx);
      assert.ok((await lstat(join(rec.skillRoot, 'alpha'))).isSymbolicLink());
    });

    it('has no global directory for project-only agents', () => {
      const eve = createGenericAdapter(GENERIC_AGENTS.find((a) => a.id === 'eve')!);
      assert.throws(() => eve.skillRoot(fx.ctx('user')), (e: unknown) => isSfError(e, 'SF_E_USAGE'));
    });
  });
});
