import { join } from 'node:path';
import { isSfError, type Diagnostic } from '../../core/errors/index.js';
import type { HostContext } from '../../core/install/host-adapter.js';
import { readConfig } from '../config/config-file.js';
import { invalidConfig } from '../config/json-diagnose.js';
import { diagnoseObserveJson, reconcileObserveJson, type ObserveJsonDesired } from '../config/observe-json.js';
import { diagnoseManagedFile, removeManagedFile, writeManagedFile } from '../observe/managed-file.js';
import type { ObserveContext, ObserveHostAdapter, ObserveHostRecord } from '../observe/types.js';
import { FORGE_VERSION } from '../../core/version.js';
import { createClaudeCodeAdapter } from './adapter.js';
import { hookCommand, renderClaudeHook } from './observe-hook.js';
import { claudeConfigDir } from './settings.js';

/**
 * Claude Code observability: the user settings' `env` block turns on Claude's native OTel log
 * export to the observer (skill_activated, tool_decision, tool_result), and one PreToolUse hook
 * matched on the `Skill` tool registers the session (cwd, pid) so the observer can tell which
 * project's installation a skill belongs to. The hook sits in its own matcher block, so Git AI's
 * `"*"` blocks (and anyone else's) are never touched.
 */

const HOST = 'Claude Code';

const hostCtx = (ctx: ObserveContext): HostContext => ({ home: ctx.home, env: ctx.env, scope: 'user', backupDir: ctx.backupDir });

/** The user settings file Forge edits ($CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json). */
export const claudeUserSettings = (ctx: ObserveContext): string => join(claudeConfigDir(hostCtx(ctx)), 'settings.json');

export const claudeHookPath = (ctx: ObserveContext): string => join(ctx.hooksDir, 'claude-code-skill.sh');

/** What Forge wants in the settings for an observer on `ctx.port`. */
export function claudeDesired(ctx: ObserveContext): ObserveJsonDesired {
  const env = (k: string, value: string, tunable = false) => ({ path: ['env', k], value, tunable });
  return {
    entries: [
      env('CLAUDE_CODE_ENABLE_TELEMETRY', '1'),
      env('OTEL_LOGS_EXPORTER', 'otlp'),
      env('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf'),
      env('OTEL_EXPORTER_OTLP_ENDPOINT', `http://127.0.0.1:${ctx.port}`),
      // flush skill records within a second; the host batches, so this costs nothing per call
      env('OTEL_LOGS_EXPORT_INTERVAL', '1000', true),
      // real skill names instead of "custom_skill" (exact fidelity); tool parameters reach only the
      // local observer, which drops them at normalization
      env('OTEL_LOG_TOOL_DETAILS', '1', true),
    ],
    items: [{ path: ['hooks', 'PreToolUse'], value: { matcher: 'Skill', hooks: [{ type: 'command', command: hookCommand(claudeHookPath(ctx)), timeout: 5 }] } }],
  };
}

const spoolFile = (ctx: ObserveContext) => join(ctx.spoolDir, 'claude-code.jsonl');

export const claudeObserveAdapter: ObserveHostAdapter = {
  id: 'claude-code',
  displayName: HOST,
  signal: 'native OTel logs (skill_activated, tool_decision, tool_result) to the observer, plus a Skill-matched hook that registers the session (id, cwd, pid)',
  fidelity: 'exact skill names and per-call load results; project resolved from the registered session',
  detect: (ctx) => createClaudeCodeAdapter().detect(hostCtx(ctx)),

  async apply(ctx, previous) {
    const diagnostics: Diagnostic[] = [];
    const hook = await writeManagedFile(claudeHookPath(ctx), renderClaudeHook(ctx.port, spoolFile(ctx)), 0o755, previous?.files[0]);
    diagnostics.push(...hook.diagnostics);
    const file = claudeUserSettings(ctx);
    const desired = claudeDesired(ctx);
    // without our own hook script, the hook entry would run someone else's file: leave it out
    if (!hook.file) desired.items = [];
    const res = await reconcileObserveJson(file, ctx.backupDir, 'json', previous?.jsonEdits.find((e) => e.file === file), desired);
    diagnostics.push(...res.diagnostics);
    const record: ObserveHostRecord = {
      agent: 'claude-code', version: FORGE_VERSION, appliedAt: new Date().toISOString(), port: ctx.port,
      jsonEdits: res.edit ? [res.edit] : [], tomlEdits: [], files: hook.file ? [hook.file] : [],
    };
    return { record, diagnostics };
  },

  async remove(ctx, record) {
    const diagnostics: Diagnostic[] = [];
    for (const edit of record.jsonEdits) diagnostics.push(...(await reconcileObserveJson(edit.file, ctx.backupDir, 'json', edit, { entries: [], items: [] })).diagnostics);
    for (const f of record.files) diagnostics.push(...(await removeManagedFile(f)));
    return diagnostics;
  },

  async diagnose(ctx, record) {
    const file = claudeUserSettings(ctx);
    const snap = await readConfig(file);
    const out: Diagnostic[] = [];
    try {
      out.push(...diagnoseObserveJson(snap.text, file, record?.jsonEdits.find((e) => e.file === file), claudeDesired(ctx), HOST));
    } catch (e) {
      if (!isSfError(e, 'SF_E_CONFIG')) throw e;
      out.push(...invalidConfig(file, e, HOST));
    }
    for (const f of record?.files ?? []) out.push(...(await diagnoseManagedFile(f, 'the Claude Code Skill hook')));
    return out;
  },
};
