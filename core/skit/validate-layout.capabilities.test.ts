import assert from 'node:assert/strict';
import { codesOf, DECLARED, findDiagnostic, readme, skillMd, validateTree, type MemoryTree } from '../../test-support/skit-layout.js';
import { contentNeed } from './capabilities.js';

/** Skill a at skills/a, with `capabilities` YAML and extra files. */
function kit(files: MemoryTree, capabilities = ''): MemoryTree {
  const caps = capabilities ? `capabilities:\n${capabilities}` : '';
  return {
    'README.md': readme(`skit: 1\nid: acme/kit\nskills:\n  - name: a\n    path: skills/a\n${DECLARED}${caps}`),
    'skills/a/SKILL.md': skillMd('a'),
    ...files,
  };
}
const undeclared = (files: MemoryTree) => codesOf(validateTree(kit(files)));

describe('SKIT validation: capabilities', () => {
  it('requires every executable (exec bit or #! line) to be declared', () => {
    assert.deepEqual(undeclared({ 'shared/scripts/run.py': { content: 'print(1)\n', exec: true } }), ['SKIT_EXECUTABLE_UNDECLARED']);
    assert.deepEqual(undeclared({ 'skills/a/scripts/go.sh': '#!/bin/sh\necho\n' }), ['SKIT_EXECUTABLE_UNDECLARED']);
    assert.deepEqual(undeclared({ 'skills/a/scripts/lib.py': 'x = 1\n# #! not at the start\n' }), []);
    const ok = validateTree(kit({ 'skills/a/scripts/go.sh': { content: '#!/bin/sh\n', exec: true } }, '  executables: [skills/a/scripts/go.sh]\n'));
    assert.deepEqual(ok.diagnostics, []);
  });

  it('finds hook declarations in hooks/, hooks.json, Claude settings and plugin manifests', () => {
    for (const [path, content] of [
      ['hooks/observe.json', '{}'],
      ['skills/a/hooks/pre.sh', 'echo'],
      ['config/hooks.json', '{}'],
      ['.claude/settings.json', '{"hooks": {"PreToolUse": []}}'],
      ['skills/a/.claude/settings.local.json', '{"hooks": {}}'],
      ['.claude-plugin/plugin.json', '{"name": "p", "hooks": "./hooks.json"}'],
    ]) {
      const r = validateTree(kit({ [path]: content }));
      assert.deepEqual(codesOf(r), ['SKIT_HOOK_UNDECLARED'], path);
      assert.equal(findDiagnostic(r, 'SKIT_HOOK_UNDECLARED').file, path);
    }
  });

  it('does not mistake ordinary content for hook declarations', () => {
    assert.deepEqual(undeclared({ 'skills/a/references/hooks/use-effect.md': 'x', '.claude/settings.json': '{"model": "x"}' }), []);
  });

  it('treats an unparsable Claude settings file as a hook declaration and warns', () => {
    const r = validateTree(kit({ '.claude/settings.json': '{ nope' }));
    assert.deepEqual(codesOf(r), ['SKIT_HOOK_UNDECLARED']);
    assert.deepEqual(codesOf(r, 'warning'), ['SKIT_CONFIG_UNPARSABLE']);
  });

  it('counts a SKILL.md with a hooks key as a hook declaration', () => {
    const r = validateTree(kit({ 'skills/a/SKILL.md': skillMd('a', 'hooks:\n  PreToolUse: []\n') }));
    assert.deepEqual(codesOf(r), ['SKILL_FRONTMATTER_UNKNOWN_KEY', 'SKIT_HOOK_UNDECLARED']);
  });

  it('finds MCP declarations: .mcp.json, mcp.json, mcp/, plugin mcpServers, opencode.json, Codex config', () => {
    for (const [path, content] of [
      ['.mcp.json', '{"mcpServers": {}}'],
      ['skills/a/mcp.json', '{}'],
      ['mcp/source-control.yaml', 'x: 1'],
      ['skills/a/mcp/server.json', '{}'],
      ['.claude-plugin/plugin.json', '{"name": "p", "mcpServers": {}}'],
      ['opencode.json', '{"mcp": {"x": {}}}'],
      ['.codex/config.toml', '[mcp_servers.docs]\ncommand = "x"\n'],
    ]) {
      assert.deepEqual(undeclared({ [path]: content }), ['SKIT_MCP_UNDECLARED'], path);
    }
    assert.deepEqual(undeclared({ 'opencode.json': '{"theme": "x"}', '.codex/config.toml': 'model = "x"\n' }), []);
  });

  it('accepts declared hooks and MCP files', () => {
    const caps = '  hooks: [hooks/observe.json]\n  mcp: [mcp/source-control.yaml, .mcp.json]\n';
    const r = validateTree(kit({ 'hooks/observe.json': '{}', 'mcp/source-control.yaml': 'x: 1', '.mcp.json': '{}' }, caps));
    assert.deepEqual(r.diagnostics, []);
  });

  it('rejects declarations of missing files and unsafe declared paths', () => {
    const r = validateTree(kit({}, '  executables: [bin/tool, ../escape.sh]\n  hooks: [/etc/hooks.json]\n  mcp: [mcp\\x.json]\n'));
    assert.deepEqual(codesOf(r), ['SKIT_CAPABILITY_MISSING', 'SKIT_CAPABILITY_PATH_UNSAFE', 'SKIT_CAPABILITY_PATH_UNSAFE', 'SKIT_CAPABILITY_PATH_UNSAFE']);
    const missing = findDiagnostic(r, 'SKIT_CAPABILITY_MISSING');
    assert.deepEqual([missing.line, missing.column], [13, 17]);
  });

  it('discloses a single-skill SKIT\'s findings as warnings (it has no descriptor to declare them in)', () => {
    const r = validateTree({ 'SKILL.md': skillMd('solo'), 'scripts/run.sh': { content: '#!/bin/sh\n', exec: true }, 'hooks/h.json': '{}' }, { rootName: 'solo' });
    assert.equal(r.ok, true);
    assert.deepEqual(codesOf(r, 'warning'), ['SKIT_EXECUTABLE_UNDECLARED', 'SKIT_HOOK_UNDECLARED']);
    assert.match(findDiagnostic(r, 'SKIT_HOOK_UNDECLARED').hint ?? '', /no README.md descriptor/);
  });

  it('does not call Agent Skills discovered in a repository a single-skill SKIT', () => {
    const descriptor = { skit: 1, id: 'provisional/0123456789abcdef', skills: ['a', 'b'].map((n) => ({ name: n, path: `skills/${n}`, default_enabled: true })) };
    const tree = { 'skills/a/SKILL.md': skillMd('a'), 'skills/a/hooks/post.sh': { content: '#!/bin/sh\necho hi\n', exec: true }, 'skills/b/SKILL.md': skillMd('b') };
    const r = validateTree(tree, { descriptor, provisionalId: descriptor.id });
    assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
    for (const d of r.diagnostics.filter((x) => x.code.endsWith('_UNDECLARED'))) {
      assert.match(d.hint ?? '', /this SKIT has no README.md descriptor/, d.code);
      assert.doesNotMatch(d.hint ?? '', /single-skill/, d.code);
    }
    assert.ok(r.diagnostics.some((x) => x.code === 'SKIT_HOOK_UNDECLARED'));
  });
});

describe('contentNeed (core/skit/capabilities)', () => {
  it('reads instructions and agent config files in full, only the first bytes of anything else', () => {
    for (const path of ['README.md', 'skills/a/SKILL.md', 'skill.md', 'skills/a/.claude/settings.json', 'skills/a/.claude/settings.local.json', '.claude-plugin/plugin.json', 'skills/a/opencode.json', 'opencode.jsonc', 'skills/a/.codex/config.toml']) {
      assert.equal(contentNeed(path), 'full', path);
    }
    for (const path of ['skills/a/README.md', 'skills/a/run.sh', 'plugin.json', 'settings.json', 'skills/a/settings.json', 'config.toml', 'skills/a/opencode.yaml', 'scripts/cli.py', 'SKILL.md.bak']) {
      assert.equal(contentNeed(path), 'head', path);
    }
  });
});
