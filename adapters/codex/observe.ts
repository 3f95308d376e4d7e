import { isDeepStrictEqual } from 'node:util';
import { assertLandsInHome } from '../../core/fs/contained.js';
import type { Diagnostic } from '../../core/errors/index.js';
import { isSfError } from '../../core/errors/index.js';
import type { HostContext } from '../../core/install/host-adapter.js';
import { FORGE_VERSION } from '../../core/version.js';
import { readConfig } from '../config/config-file.js';
import { invalidConfig } from '../config/json-diagnose.js';
import { parseTomlConfig } from '../config/toml-blocks.js';
import { findManagedTables, reconcileTomlTable } from '../config/toml-table.js';
import type { ObserveContext, ObserveHostAdapter } from '../observe/types.js';
import { codexConfigFile, createCodexAdapter } from './adapter.js';

/**
 * Codex observability: a Forge-managed `[otel]` table in $CODEX_HOME/config.toml (Codex reads
 * [otel] only from the user layer, and ignores OTEL_* variables) exporting logs
 * (codex.skill_invocation, tool decisions and results) and metrics (codex.skill.injected, the
 * load result) to the observer. Codex has no per-invocation skill hook, so load results are
 * joined from the metric (derived); the observer registers each conversation from Codex's own
 * rollout record of its cwd (core/observer/codex-sessions.ts). Traces stay off: each Codex trace
 * export is over a megabyte and skill events do not need it.
 */

const HOST = 'Codex';
export const OTEL_TABLE = 'otel';
export const MARKER_ID = 'observe';

const hostCtx = (ctx: ObserveContext): HostContext => ({ home: ctx.home, env: ctx.env, scope: 'user', backupDir: ctx.backupDir });

/** The `[otel]` values for an observer on `port`. */
export function codexOtelValues(port: number): Record<string, unknown> {
  const exporter = (signal: string) => ({ 'otlp-http': { endpoint: `http://127.0.0.1:${port}/v1/${signal}`, protocol: 'binary' } });
  return { log_user_prompt: false, exporter: exporter('logs'), metrics_exporter: exporter('metrics') };
}

export const codexObserveAdapter: ObserveHostAdapter = {
  id: 'codex',
  displayName: HOST,
  signal: 'native OTel logs (codex.skill_invocation, tool results) and metrics (codex.skill.injected) to the observer',
  fidelity: 'exact selection; load result derived from the codex.skill.injected metric; sessions registered from Codex\'s own rollout records (no per-invocation hook)',
  detect: (ctx) => createCodexAdapter().detect(hostCtx(ctx)),

  async apply(ctx, previous) {
    const file = codexConfigFile(hostCtx(ctx));
    assertLandsInHome(file, ctx.home, 'the Codex config file');
    const edit = await reconcileTomlTable(file, ctx.backupDir, previous?.tomlEdits.find((e) => e.file === file), OTEL_TABLE, MARKER_ID, codexOtelValues(ctx.port));
    const diagnostics: Diagnostic[] = [];
    // Forge's table in a config Codex no longer reads (CODEX_HOME changed): taken out there
    for (const old of previous?.tomlEdits.filter((e) => e.file !== file) ?? []) {
      try {
        await reconcileTomlTable(old.file, ctx.backupDir, old, old.table, old.id, undefined);
      } catch (e) {
        if (!isSfError(e)) throw e;
        diagnostics.push({ code: 'SF_OBSERVE_DRIFT', severity: 'warning', file: old.file, message: `${HOST}: Forge's [${old.table}] table in ${old.file}, which Codex no longer reads, could not be removed: ${e.message}`, hint: 'remove the block marked "managed by sf" from that file yourself' });
      }
    }
    return {
      record: { agent: 'codex', version: FORGE_VERSION, appliedAt: new Date().toISOString(), port: ctx.port, jsonEdits: [], tomlEdits: edit ? [edit] : [], files: [] },
      diagnostics,
    };
  },

  async remove(ctx, record) {
    for (const edit of record.tomlEdits) await reconcileTomlTable(edit.file, ctx.backupDir, edit, edit.table, edit.id, undefined);
    return [];
  },

  async diagnose(ctx, record) {
    const file = codexConfigFile(hostCtx(ctx));
    const snap = readConfig(file);
    let doc: Record<string, unknown>;
    try {
      doc = parseTomlConfig(snap.text, file);
    } catch (e) {
      if (!isSfError(e, 'SF_E_CONFIG')) throw e;
      return invalidConfig(file, e, HOST);
    }
    const out: Diagnostic[] = [];
    const blocks = findManagedTables(snap.text, OTEL_TABLE, MARKER_ID);
    const want = codexOtelValues(ctx.port);
    if (blocks.length === 0) {
      out.push({ code: 'SF_OBSERVE_DRIFT', severity: 'error', file,
        message: doc.otel === undefined ? `${HOST}: Forge's [otel] table is missing from ${file}` : `${HOST}: [otel] in ${file} is no longer Forge's (the marker line is gone)`,
        hint: doc.otel === undefined ? 'run `sf observe update` to add it again' : 'remove your [otel] table, then run `sf observe update`' });
    } else if (!isDeepStrictEqual(doc.otel, want)) {
      out.push({ code: 'SF_OBSERVE_DRIFT', severity: 'error', file,
        message: `${HOST}: Forge's [otel] table in ${file} does not point at the observer on port ${ctx.port}`, hint: 'run `sf observe update` to rewrite it' });
    }
    if (!record?.tomlEdits.some((e) => e.file === file) && blocks.length) {
      out.push({ code: 'SF_OBSERVE_UNRECORDED', severity: 'warning', file, message: `${HOST}: ${file} has a Forge [otel] block that no install record mentions`, hint: 'run `sf observe update` to adopt it, or `sf observe uninstall` to remove it' });
    }
    return out;
  },
};
