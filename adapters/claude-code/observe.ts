import { join } from 'node:path';
import { isSfError, type Diagnostic } from '../../core/errors/index.js';
import type { HostContext } from '../../core/install/host-adapter.js';
import { readConfig } from '../config/config-file.js';
import { invalidConfig } from '../config/json-diagnose.js';
import { diagnoseObserveJson, reconcileObserveJson, type ObserveJsonDesired } from '../config/observe-json.js';
import { removeManagedFile } from '../observe/managed-file.js';
import { assertWriteStaysInHome } from '../observe/home-links.js';
import type { ObserveContext, ObserveHostAdapter, ObserveHostRecord } from '../observe/types.js';
import { FORGE_VERSION } from '../../core/version.js';
import { createClaudeCodeAdapter } from './adapter.js';
import { claudeConfigDir } from './settings.js';

/**
 * Claude Code observability: only the user settings' `env` block, which turns on Claude's native
 * OTel log export to the observer (skill_activated, tool_decision, tool_result). No hook runs in
 * Claude: the observer registers each session from the cwd in Claude's own transcript file
 * (core/observer/claude-sessions.ts). Forge versions before that also added a `Skill`-matched
 * PreToolUse hook and its script; `apply` (install, update) removes both from such an install.
 */

const HOST = 'Claude Code';

const hostCtx = (ctx: ObserveContext): HostContext => ({ home: ctx.home, env: ctx.env, scope: 'user', backupDir: ctx.backupDir });

/** The user settings file Forge edits ($CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json). */
export const claudeUserSettings = (ctx: ObserveContext): string => join(claudeConfigDir(hostCtx(ctx)), 'settings.json');

/** What Forge wants in the settings for an observer on `ctx.port`: `env` keys, no hooks. */
export function claudeDesired(ctx: ObserveContext): ObserveJsonDesired {
  const env = (k: string, value: string, tunable = false) => ({ path: ['env', k], value, tunable });
  return {
    entries: [
      env('CLAUDE_CODE_ENABLE_TELEMETRY', '1'),
      env('OTEL_LOGS_EXPORTER', 'otlp'),
      // the observer reads OTLP/JSON as well: a user who switched to it keeps it (grpc it does not speak)
      { ...env('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf'), accepts: ['http/json'] },
      env('OTEL_EXPORTER_OTLP_ENDPOINT', `http://127.0.0.1:${ctx.port}`),
      // flush skill records within a second; the host batches, so this costs nothing per call
      env('OTEL_LOGS_EXPORT_INTERVAL', '1000', true),
      // real skill names instead of "custom_skill" (exact fidelity); tool parameters reach only the
      // local observer, which drops them at normalization
      env('OTEL_LOG_TOOL_DETAILS', '1', true),
    ],
    items: [],
  };
}

/** What an older install left that this version no longer wants: the Skill hook entry and script. */
function legacyHook(record: ObserveHostRecord | undefined): boolean {
  return !!record && (record.files.length > 0 || record.jsonEdits.some((e) => e.items.length > 0));
}

export const claudeObserveAdapter: ObserveHostAdapter = {
  id: 'claude-code',
  displayName: HOST,
  signal: 'native OTel logs (skill_activated, tool_decision, tool_result) to the observer; no hook: the observer registers each session from Claude\'s own transcript file',
  fidelity: 'exact skill names and per-call load results; project resolved from Claude\'s own session records: the running-session file (cwd and pid) or else the transcript (cwd only; such a session expires 12 h after its last telemetry)',
  detect: (ctx) => createClaudeCodeAdapter().detect(hostCtx(ctx)),
  targets: (ctx) => [claudeUserSettings(ctx)],

  async apply(ctx, previous) {
    const file = claudeUserSettings(ctx);
    assertWriteStaysInHome(file, ctx.home, 'the Claude Code settings file');
    // settings first: the old hook entry leaves before the script it runs does
    const res = await reconcileObserveJson(file, ctx.backupDir, 'json', previous?.jsonEdits.find((e) => e.file === file), claudeDesired(ctx));
    const diagnostics: Diagnostic[] = [...res.diagnostics];
    // settings Forge edited where Claude Code no longer reads them (CLAUDE_CONFIG_DIR changed):
    // taken out there, or they would stay behind with no record
    for (const old of previous?.jsonEdits.filter((e) => e.file !== file) ?? []) {
      try {
        diagnostics.push(...(await reconcileObserveJson(old.file, ctx.backupDir, 'json', old, { entries: [], items: [] })).diagnostics);
      } catch (e) {
        if (!isSfError(e)) throw e;
        diagnostics.push({ code: 'SF_OBSERVE_DRIFT', severity: 'warning', file: old.file, message: `${HOST}: Forge's settings in ${old.file}, which Claude Code no longer reads, could not be removed: ${e.message}`, hint: 'remove Forge\'s "env" entries from that file yourself' });
      }
    }
    for (const f of previous?.files ?? []) diagnostics.push(...(await removeManagedFile(f)));
    const record: ObserveHostRecord = {
      agent: 'claude-code', version: FORGE_VERSION, appliedAt: new Date().toISOString(), port: ctx.port,
      jsonEdits: res.edit ? [res.edit] : [], tomlEdits: [], files: [],
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
    const snap = readConfig(file);
    const out: Diagnostic[] = [];
    try {
      out.push(...diagnoseObserveJson(snap.text, file, record?.jsonEdits.find((e) => e.file === file), claudeDesired(ctx), HOST));
    } catch (e) {
      if (!isSfError(e, 'SF_E_CONFIG')) throw e;
      out.push(...invalidConfig(file, e, HOST));
    }
    if (legacyHook(record)) {
      out.push({ code: 'SF_OBSERVE_DRIFT', severity: 'warning', file,
        message: `${HOST}: the Skill hook an older Forge installed is still in place (it slows every Skill call and is no longer needed)`,
        hint: 'run `sf observe update` to remove it; your own hooks are kept' });
    }
    return out;
  },
};
