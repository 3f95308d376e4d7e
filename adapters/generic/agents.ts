/**
 * The agents Forge can project skills into without a native adapter: every agent of the Agent
 * Skills ecosystem table (research/skills-anchors.md §2, matching Vercel `skills` 1.7.4), with its
 * project and global (user) skill directory and the paths whose existence shows it is installed.
 *
 * Path templates: `~/x` is below the home directory, `${VAR:-default}/x` uses $VAR when set (for
 * example CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME), project paths are relative to the project root.
 * `null` means the agent has no skill directory for that scope. An agent that renamed its home
 * lists the old ones in `legacyUser` (see userSkillDir in paths.ts).
 */
export interface GenericAgentEntry {
  id: string;
  displayName: string;
  /** other names accepted by --agent */
  aliases?: string[];
  /** skill directory relative to the project root */
  project: string | null;
  /** global skill directory (template) */
  user: string | null;
  /**
   * global skill directories (templates) of the agent's earlier homes, in order: used instead of
   * `user` when the home holding `user` (its parent directory) does not exist and theirs does,
   * as Vercel `skills` picks OpenClaw's (formerly Clawdbot, then Moltbot)
   */
  legacyUser?: string[];
  /** user-level paths (templates) whose existence means the agent is installed */
  detect: string[];
}

const CONFIG = '${XDG_CONFIG_HOME:-~/.config}';

/** One row per agent id; agents sharing a directory (e.g. `.agents/skills`) each have their own row. */
export const GENERIC_AGENTS: readonly GenericAgentEntry[] = [
  { id: 'aider-desk', displayName: 'AiderDesk', project: '.aider-desk/skills', user: '~/.aider-desk/skills', detect: ['~/.aider-desk'] },
  { id: 'amp', displayName: 'Amp', project: '.agents/skills', user: `${CONFIG}/agents/skills`, detect: [`${CONFIG}/amp`] },
  { id: 'antigravity', displayName: 'Antigravity', project: '.agents/skills', user: '~/.gemini/antigravity/skills', detect: ['~/.gemini/antigravity'] },
  { id: 'antigravity-cli', displayName: 'Antigravity CLI', project: '.agents/skills', user: '~/.gemini/antigravity-cli/skills', detect: ['~/.gemini/antigravity-cli'] },
  { id: 'astrbot', displayName: 'AstrBot', project: 'data/skills', user: '~/.astrbot/data/skills', detect: ['~/.astrbot'] },
  { id: 'autohand-code', displayName: 'Autohand Code', aliases: ['autohand'], project: '.autohand/skills', user: '${AUTOHAND_HOME:-~/.autohand}/skills', detect: ['${AUTOHAND_HOME:-~/.autohand}'] },
  { id: 'augment', displayName: 'Augment', project: '.augment/skills', user: '~/.augment/skills', detect: ['~/.augment'] },
  { id: 'bob', displayName: 'IBM Bob', aliases: ['ibm-bob'], project: '.bob/skills', user: '~/.bob/skills', detect: ['~/.bob'] },
  { id: 'claude-code', displayName: 'Claude Code', aliases: ['claude'], project: '.claude/skills', user: '${CLAUDE_CONFIG_DIR:-~/.claude}/skills', detect: ['${CLAUDE_CONFIG_DIR:-~/.claude}'] },
  { id: 'openclaw', displayName: 'OpenClaw', aliases: ['clawdbot', 'moltbot'], project: 'skills', user: '~/.openclaw/skills', legacyUser: ['~/.clawdbot/skills', '~/.moltbot/skills'], detect: ['~/.openclaw', '~/.clawdbot', '~/.moltbot'] },
  { id: 'cline', displayName: 'Cline', project: '.agents/skills', user: '~/.agents/skills', detect: ['~/.cline'] },
  { id: 'codearts-agent', displayName: 'CodeArts Agent', aliases: ['codearts'], project: '.codeartsdoer/skills', user: '~/.codeartsdoer/skills', detect: ['~/.codeartsdoer'] },
  { id: 'codebuddy', displayName: 'CodeBuddy', project: '.codebuddy/skills', user: '~/.codebuddy/skills', detect: ['~/.codebuddy'] },
  { id: 'codemaker', displayName: 'Codemaker', project: '.codemaker/skills', user: '~/.codemaker/skills', detect: ['~/.codemaker'] },
  { id: 'codestudio', displayName: 'Code Studio', project: '.codestudio/skills', user: '~/.codestudio/skills', detect: ['~/.codestudio'] },
  { id: 'codex', displayName: 'Codex', project: '.agents/skills', user: '~/.agents/skills', detect: ['${CODEX_HOME:-~/.codex}'] },
  { id: 'command-code', displayName: 'Command Code', project: '.commandcode/skills', user: '~/.commandcode/skills', detect: ['~/.commandcode'] },
  { id: 'continue', displayName: 'Continue', project: '.continue/skills', user: '~/.continue/skills', detect: ['~/.continue'] },
  { id: 'cortex', displayName: 'Cortex Code', project: '.cortex/skills', user: '~/.snowflake/cortex/skills', detect: ['~/.snowflake/cortex'] },
  { id: 'crush', displayName: 'Crush', project: '.crush/skills', user: '~/.config/crush/skills', detect: ['~/.config/crush'] },
  { id: 'cursor', displayName: 'Cursor', project: '.agents/skills', user: '~/.cursor/skills', detect: ['~/.cursor'] },
  { id: 'deepagents', displayName: 'Deep Agents', aliases: ['deep-agents'], project: '.agents/skills', user: '~/.deepagents/agent/skills', detect: ['~/.deepagents'] },
  { id: 'devin', displayName: 'Devin for Terminal', project: '.devin/skills', user: `${CONFIG}/devin/skills`, detect: [`${CONFIG}/devin`] },
  { id: 'dexto', displayName: 'Dexto', project: '.agents/skills', user: '~/.agents/skills', detect: ['~/.dexto'] },
  { id: 'droid', displayName: 'Droid', aliases: ['factory'], project: '.agents/skills', user: '~/.factory/skills', detect: ['~/.factory'] },
  { id: 'eve', displayName: 'Eve', project: 'agent/skills', user: null, detect: [] },
  { id: 'firebender', displayName: 'Firebender', project: '.agents/skills', user: '~/.firebender/skills', detect: ['~/.firebender'] },
  { id: 'forgecode', displayName: 'ForgeCode', project: '.forge/skills', user: '~/.forge/skills', detect: ['~/.forge'] },
  { id: 'fx', displayName: 'fx', project: '.agents/skills', user: '~/.agents/skills', detect: ['~/.fx'] },
  { id: 'gemini-cli', displayName: 'Gemini CLI', aliases: ['gemini'], project: '.agents/skills', user: '~/.gemini/skills', detect: ['~/.gemini'] },
  { id: 'github-copilot', displayName: 'GitHub Copilot', aliases: ['copilot'], project: '.agents/skills', user: '~/.copilot/skills', detect: ['~/.copilot'] },
  { id: 'goose', displayName: 'Goose', project: '.goose/skills', user: `${CONFIG}/goose/skills`, detect: [`${CONFIG}/goose`] },
  { id: 'grok', displayName: 'Grok Build', project: '.grok/skills', user: '${GROK_HOME:-~/.grok}/skills', detect: ['${GROK_HOME:-~/.grok}'] },
  { id: 'hermes-agent', displayName: 'Hermes Agent', aliases: ['hermes'], project: '.hermes/skills', user: '${HERMES_HOME:-~/.hermes}/skills', detect: ['${HERMES_HOME:-~/.hermes}'] },
  { id: 'inference-sh', displayName: 'inference.sh', project: '.inferencesh/skills', user: '~/.inferencesh/skills', detect: ['~/.inferencesh'] },
  { id: 'jazz', displayName: 'Jazz', project: '.jazz/skills', user: '~/.jazz/skills', detect: ['~/.jazz'] },
  { id: 'junie', displayName: 'Junie', project: '.junie/skills', user: '~/.junie/skills', detect: ['~/.junie'] },
  { id: 'iflow-cli', displayName: 'iFlow CLI', aliases: ['iflow'], project: '.iflow/skills', user: '~/.iflow/skills', detect: ['~/.iflow'] },
  { id: 'kilo', displayName: 'Kilo Code', aliases: ['kilocode'], project: '.agents/skills', user: '~/.kilo/skills', detect: ['~/.kilo', '~/.kilocode'] },
  { id: 'kimchi', displayName: 'Kimchi', project: '.kimchi/skills', user: '~/.config/kimchi/harness/skills', detect: ['~/.config/kimchi'] },
  { id: 'kimi-code-cli', displayName: 'Kimi Code CLI', aliases: ['kimi', 'kimi-cli'], project: '.agents/skills', user: '~/.agents/skills', detect: ['~/.kimi-code', '~/.kimi'] },
  { id: 'kiro-cli', displayName: 'Kiro CLI', aliases: ['kiro'], project: '.kiro/skills', user: '~/.kiro/skills', detect: ['~/.kiro'] },
  { id: 'kode', displayName: 'Kode', project: '.kode/skills', user: '~/.kode/skills', detect: ['~/.kode'] },
  { id: 'lingma', displayName: 'Lingma', project: '.lingma/skills', user: '~/.lingma/skills', detect: ['~/.lingma'] },
  { id: 'loaf', displayName: 'Loaf', project: '.agents/skills', user: '~/.agents/skills', detect: ['~/.loaf'] },
  { id: 'mcpjam', displayName: 'MCPJam', project: '.mcpjam/skills', user: '~/.mcpjam/skills', detect: ['~/.mcpjam'] },
  { id: 'minimax-code', displayName: 'MiniMax Code', aliases: ['minimax'], project: '.minimax/skills', user: '~/.minimax/skills', detect: ['~/.minimax'] },
  { id: 'mistral-vibe', displayName: 'Mistral Vibe', aliases: ['vibe'], project: '.vibe/skills', user: '${VIBE_HOME:-~/.vibe}/skills', detect: ['${VIBE_HOME:-~/.vibe}'] },
  { id: 'moxby', displayName: 'Moxby', project: '.moxby/skills', user: '~/.moxby/skills', detect: ['~/.moxby'] },
  { id: 'mux', displayName: 'Mux', project: '.mux/skills', user: '~/.mux/skills', detect: ['~/.mux'] },
  { id: 'opencode', displayName: 'OpenCode', project: '.agents/skills', user: `${CONFIG}/opencode/skills`, detect: [`${CONFIG}/opencode`] },
  { id: 'openhands', displayName: 'OpenHands', project: '.openhands/skills', user: '~/.openhands/skills', detect: ['~/.openhands'] },
  { id: 'ona', displayName: 'Ona', project: '.ona/skills', user: '~/.ona/skills', detect: ['~/.ona'] },
  { id: 'pi', displayName: 'Pi', project: '.agents/skills', user: '~/.agents/skills', detect: ['~/.pi/agent'] },
  { id: 'posit-assistant', displayName: 'Posit Assistant', aliases: ['posit'], project: '.posit/assistant/skills', user: '~/.posit/assistant/skills', detect: ['~/.posit/assistant', '~/.positai'] },
  { id: 'qoder', displayName: 'Qoder', project: '.qoder/skills', user: '~/.qoder/skills', detect: ['~/.qoder'] },
  { id: 'qoder-cn', displayName: 'Qoder CN', project: '.qoder/skills', user: '~/.qoder-cn/skills', detect: ['~/.qoder-cn'] },
  { id: 'qwen-code', displayName: 'Qwen Code', aliases: ['qwen'], project: '.qwen/skills', user: '~/.qwen/skills', detect: ['~/.qwen'] },
  { id: 'replit', displayName: 'Replit', project: '.agents/skills', user: `${CONFIG}/agents/skills`, detect: [] },
  { id: 'reasonix', displayName: 'Reasonix', project: '.reasonix/skills', user: '~/.reasonix/skills', detect: ['~/.reasonix'] },
  { id: 'rovodev', displayName: 'Rovo Dev', aliases: ['rovo-dev'], project: '.rovodev/skills', user: '~/.rovodev/skills', detect: ['~/.rovodev'] },
  { id: 'roo', displayName: 'Roo Code', aliases: ['roo-code'], project: '.roo/skills', user: '~/.roo/skills', detect: ['~/.roo'] },
  { id: 'sarvam-code', displayName: 'Sarvam Code', aliases: ['sarvam'], project: '.agents/skills', user: '~/.agents/skills', detect: ['${SARVAM_HOME:-~/.sarvam}'] },
  { id: 'tabnine-cli', displayName: 'Tabnine CLI', aliases: ['tabnine'], project: '.tabnine/agent/skills', user: '~/.tabnine/agent/skills', detect: ['~/.tabnine'] },
  { id: 'terramind', displayName: 'Terramind', project: '.terramind/skills', user: '~/.terramind/skills', detect: ['~/.terramind'] },
  { id: 'tinycloud', displayName: 'Tinycloud', project: '.tinycloud/skills', user: '~/.tinycloud/skills', detect: ['~/.tinycloud'] },
  { id: 'trae', displayName: 'Trae', project: '.trae/skills', user: '~/.trae/skills', detect: ['~/.trae'] },
  { id: 'trae-cn', displayName: 'Trae CN', project: '.trae/skills', user: '~/.trae-cn/skills', detect: ['~/.trae-cn'] },
  { id: 'warp', displayName: 'Warp', project: '.agents/skills', user: '~/.agents/skills', detect: ['~/.warp'] },
  { id: 'windsurf', displayName: 'Windsurf', project: '.windsurf/skills', user: '~/.codeium/windsurf/skills', detect: ['~/.codeium/windsurf'] },
  { id: 'zed', displayName: 'Zed', project: '.agents/skills', user: '~/.agents/skills', detect: [`${CONFIG}/zed`] },
  { id: 'zcode', displayName: 'ZCode', project: '.zcode/skills', user: '~/.zcode/skills', detect: ['~/.zcode'] },
  { id: 'zencoder', displayName: 'Zencoder', project: '.zencoder/skills', user: '~/.zencoder/skills', detect: ['~/.zencoder'] },
  { id: 'zenflow', displayName: 'Zenflow', project: '.zencoder/skills', user: '~/.zencoder/skills', detect: ['~/.zencoder'] },
  { id: 'neovate', displayName: 'Neovate', project: '.neovate/skills', user: '~/.neovate/skills', detect: ['~/.neovate'] },
  { id: 'pochi', displayName: 'Pochi', project: '.pochi/skills', user: '~/.pochi/skills', detect: ['~/.pochi'] },
  { id: 'promptscript', displayName: 'PromptScript', project: '.agents/skills', user: null, detect: [] },
  { id: 'adal', displayName: 'AdaL', project: '.adal/skills', user: '~/.adal/skills', detect: ['~/.adal'] },
  {
    id: 'universal',
    displayName: 'Universal (.agents/skills)',
    aliases: ['generic'],
    project: '.agents/skills',
    user: `${CONFIG}/agents/skills`,
    detect: [],
  },
];
