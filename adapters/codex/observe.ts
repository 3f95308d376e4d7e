import { isDeepStrictEqual } from 'node:util';
import type { Diagnostic } from '../../core/errors/index.js';
import { isSfError, SfError } from '../../core/errors/index.js';
import type { HostContext } from '../../core/install/host-adapter.js';
import { FORGE_VERSION } from '../../core/version.js';
import { editConfigFile, readConfig } from '../config/config-file.js';
import { invalidConfig } from '../config/json-diagnose.js';
import { MARKER, parseTomlConfig } from '../config/toml-blocks.js';
import { findManagedTables, reconcileTomlTable, tomlLiteral, type TomlTableEdit } from '../config/toml-table.js';
import { assertWriteStaysInHome } from '../observe/home-links.js';
import type { ObserveContext, ObserveHostAdapter } from '../observe/types.js';
import { codexConfigFile, createCodexAdapter } from './adapter.js';
import { locateOtelTable, planOtelRemoval, planOtelValues, userKeys } from './observe-table.js';

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

const keyList = (keys: string[]): string => `key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}`;

/** An exporter by its endpoint (and protocol), any other value as TOML. */
function describe(v: unknown): string {
  const http = v && typeof v === 'object' ? (v as Record<string, unknown>)['otlp-http'] : undefined;
  if (http && typeof http === 'object') {
    const { endpoint, protocol } = http as Record<string, unknown>;
    if (typeof endpoint === 'string') return `${endpoint}${typeof protocol === 'string' ? ` (${protocol})` : ''}`;
  }
  try {
    return tomlLiteral(v);
  } catch {
    return JSON.stringify(v);
  }
}

/** The observer reads OTLP/HTTP in protobuf and in JSON: an exporter at its endpoint in either reaches it. */
const OBSERVER_PROTOCOLS = ['binary', 'json'];

/** Whether exporter value `now` still sends to the observer endpoint of `want` (only the encoding may differ). */
function reachesObserver(now: unknown, want: unknown): boolean {
  const http = (v: unknown) => (v && typeof v === 'object' ? ((v as Record<string, unknown>)['otlp-http'] as Record<string, unknown> | undefined) : undefined);
  const n = http(now);
  const w = http(want);
  return !!n && !!w && typeof n === 'object' && n.endpoint === w.endpoint && OBSERVER_PROTOCOLS.includes(String(n.protocol));
}

/**
 * A Forge key whose value the user changed: kept. An exporter that still reaches the observer (an
 * encoding the observer reads) is info; one pointing elsewhere means no Codex telemetry reaches it.
 */
function keptValue(file: string, key: string, now: unknown, want: unknown, port: number): Diagnostic {
  const exporter = key !== 'log_user_prompt';
  const reaches = exporter && reachesObserver(now, want);
  return { code: 'SF_OBSERVE_USER_VALUE', severity: reaches ? 'info' : exporter ? 'error' : 'warning', file,
    message: `${HOST}: "${key}" in Forge's [otel] table in ${file} was changed to ${describe(now)} (Forge's: ${describe(want)}); Forge keeps values you set${reaches ? `; the observer on port ${port} reads that encoding as well, so Codex still sends it this telemetry` : exporter ? `, so Codex does not send this telemetry to the observer on port ${port}` : ''}`,
    hint: `to get Forge's value back, delete the "${key}" line (or set it back yourself) and run \`sf observe update\`` };
}

/** Sets Forge's keys in its existing block, line by line; undefined when there is no (single) block. */
async function setInPlace(file: string, backupDir: string, values: Record<string, unknown>, previous: TomlTableEdit | undefined): Promise<{ edit: TomlTableEdit; kept: string[]; now: Record<string, unknown> } | undefined> {
  const snap = readConfig(file);
  if (!snap.exists || !locateOtelTable(snap.text, file, OTEL_TABLE, MARKER_ID)) return undefined;
  let kept: string[] = [];
  let now: Record<string, unknown> = {};
  const outcome = await editConfigFile(file, backupDir, (s) => {
    const t = locateOtelTable(s.text, file, OTEL_TABLE, MARKER_ID);
    if (!t) throw new SfError('SF_E_CONFLICT', `${file} changed while Forge edited it`, { location: { file }, hint: 'run the command again' });
    const plan = planOtelValues(t, file, OTEL_TABLE, values, s.shape.eol, previous?.values);
    kept = plan.kept;
    now = t.table;
    return plan.text;
  });
  const backup = previous?.backup ?? outcome.backup;
  return {
    edit: { file, ...(backup ? { backup } : {}), origin: previous?.origin ?? 'existing', table: OTEL_TABLE, id: MARKER_ID, values, ...(typeof previous?.separator === 'string' ? { separator: previous.separator } : {}) },
    kept, now,
  };
}

/**
 * Removes Forge's table. When the table holds keys outside Forge's block lines (TOML gave it the
 * user's lines after the block), only Forge's key lines and the marker go; else the block goes
 * as it was added.
 */
async function removeTable(edit: TomlTableEdit, backupDir: string): Promise<string[]> {
  const snap = readConfig(edit.file);
  const t = snap.exists ? locateOtelTable(snap.text, edit.file, edit.table, edit.id) : undefined;
  // no marker, but the table still holds what Forge wrote: Forge can no longer tell it from the
  // user's, so it stays, and the caller says what is left (never a quiet "removed")
  const left = !t && snap.exists ? forgeValuesLeft(snap.text, edit) : [];
  if (left.length) return left;
  if (!t || userKeys(t, Object.keys(edit.values)).after.length === 0) {
    await reconcileTomlTable(edit.file, backupDir, edit, edit.table, edit.id, undefined);
    return [];
  }
  await editConfigFile(edit.file, backupDir, (s) => {
    const now = locateOtelTable(s.text, edit.file, edit.table, edit.id);
    if (!now) throw new SfError('SF_E_CONFLICT', `${edit.file} changed while Forge edited it`, { location: { file: edit.file }, hint: 'run the command again' });
    return planOtelRemoval(now, edit.file, edit.table, edit.values);
  });
  return [];
}

/** Forge's keys that an unmarked `[table]` in `text` still holds with the values Forge wrote. */
function forgeValuesLeft(text: string, edit: TomlTableEdit): string[] {
  const table = parseTomlConfig(text, edit.file)[edit.table];
  if (!table || typeof table !== 'object') return [];
  return Object.keys(edit.values).filter((k) => isDeepStrictEqual((table as Record<string, unknown>)[k], edit.values[k]));
}

/** What uninstall could not take out: Forge's values in a table whose marker line is gone. */
function leftInPlace(edit: TomlTableEdit, keys: string[], port: number): Diagnostic {
  const exporting = keys.some((k) => k !== 'log_user_prompt');
  return { code: 'SF_OBSERVE_LEFT_IN_PLACE', severity: 'error', file: edit.file,
    message: `${HOST}: Forge's [${edit.table}] settings in ${edit.file} were left in place: the line "${MARKER} ${edit.id}" above [${edit.table}] is gone, so Forge cannot tell its table from yours; ${keyList(keys)} still hold${keys.length > 1 ? '' : 's'} Forge's value${keys.length > 1 ? 's' : ''}${exporting ? `, so Codex keeps exporting to the observer on 127.0.0.1:${port}` : ''}`,
    hint: `delete ${keys.length > 1 ? 'those keys' : 'that key'} (or the whole [${edit.table}] table) from ${edit.file} yourself, or put the line "${MARKER} ${edit.id}" back right above [${edit.table}] and run \`sf observe uninstall\` again; Codex stays in the install record until then` };
}

export const codexObserveAdapter: ObserveHostAdapter = {
  id: 'codex',
  displayName: HOST,
  signal: 'native OTel logs (codex.skill_invocation, tool results) and metrics (codex.skill.injected) to the observer',
  fidelity: 'exact selection; load result derived from the codex.skill.injected metric; sessions registered from Codex\'s own rollout records (no per-invocation hook)',
  detect: (ctx) => createCodexAdapter().detect(hostCtx(ctx)),
  targets: (ctx) => [codexConfigFile(hostCtx(ctx))],

  async apply(ctx, previous) {
    const file = codexConfigFile(hostCtx(ctx));
    assertWriteStaysInHome(file, ctx.home, 'the Codex config file');
    const prevEdit = previous?.tomlEdits.find((e) => e.file === file);
    const values = codexOtelValues(ctx.port);
    const diagnostics: Diagnostic[] = [];
    // Forge's block already there (the user may have added keys to it, or moved it): Forge's keys
    // are set line by line, everything else stays where it is; otherwise the table is appended
    const inPlace = await setInPlace(file, ctx.backupDir, values, prevEdit);
    const edit = inPlace ? inPlace.edit : await reconcileTomlTable(file, ctx.backupDir, prevEdit, OTEL_TABLE, MARKER_ID, values);
    for (const k of inPlace?.kept ?? []) diagnostics.push(keptValue(file, k, inPlace!.now[k], values[k], ctx.port));
    // Forge's table in a config Codex no longer reads (CODEX_HOME changed): taken out there
    for (const old of previous?.tomlEdits.filter((e) => e.file !== file) ?? []) {
      try {
        const left = await removeTable(old, ctx.backupDir);
        if (left.length) {
          const d = leftInPlace(old, left, previous?.port ?? ctx.port);
          diagnostics.push({ ...d, severity: 'warning', message: `${d.message.replace(/, so Codex keeps exporting.*$/, '')} (Codex no longer reads this file)`, hint: `delete them from ${old.file} yourself if you no longer want them` });
        }
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
    const out: Diagnostic[] = [];
    for (const edit of record.tomlEdits) {
      const left = await removeTable(edit, ctx.backupDir);
      if (left.length) out.push(leftInPlace(edit, left, record.port));
    }
    return out;
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
    const written = record?.tomlEdits.find((e) => e.file === file)?.values;
    if (blocks.length === 0) {
      // no marker, but Forge's values: most likely the user tidied the marker line away
      const recorded = record?.tomlEdits.find((e) => e.file === file);
      const left = doc.otel !== undefined && recorded ? forgeValuesLeft(snap.text, recorded) : [];
      out.push({ code: 'SF_OBSERVE_DRIFT', severity: 'error', file,
        message: doc.otel === undefined ? `${HOST}: Forge's [otel] table is missing from ${file}` : `${HOST}: [otel] in ${file} is no longer Forge's (the marker line is gone)${left.length ? `, though ${keyList(left)} still hold${left.length > 1 ? '' : 's'} Forge's value${left.length > 1 ? 's' : ''}` : ''}`,
        hint: doc.otel === undefined ? 'run `sf observe update` to add it again'
          : left.length ? `put the line "${MARKER} ${MARKER_ID}" back right above [otel] (then \`sf observe update\` and \`uninstall\` manage it again), or remove the [otel] table and run \`sf observe update\``
            : 'remove your [otel] table, then run `sf observe update`' });
    } else {
      const table = doc.otel && typeof doc.otel === 'object' ? (doc.otel as Record<string, unknown>) : {};
      for (const [k, w] of Object.entries(want)) {
        const now = table[k];
        if (isDeepStrictEqual(now, w)) continue;
        if (now === undefined) {
          out.push({ code: 'SF_OBSERVE_DRIFT', severity: 'error', file, message: `${HOST}: "${k}" is missing from Forge's [otel] table in ${file}`, hint: 'run `sf observe update` to add it again; your other keys stay where they are' });
        } else if ((written && !isDeepStrictEqual(now, written[k])) || reachesObserver(now, w)) {
          // changed by the user: update keeps it (user values are never overwritten)
          out.push(keptValue(file, k, now, w, ctx.port));
        } else {
          out.push({ code: 'SF_OBSERVE_DRIFT', severity: 'error', file,
            message: k === 'log_user_prompt' ? `${HOST}: "${k}" in Forge's [otel] table in ${file} is ${tomlLiteral(now)}, not ${tomlLiteral(w)}` : `${HOST}: "${k}" in Forge's [otel] table in ${file} does not point at the observer on port ${ctx.port}`,
            hint: 'run `sf observe update` to rewrite Forge\'s keys; your other keys stay where they are' });
        }
      }
      const located = blocks.length === 1 ? locateOtelTable(snap.text, file, OTEL_TABLE, MARKER_ID) : undefined;
      const own = located ? userKeys(located, Object.keys(want)) : { inBlock: [], after: [] };
      if (own.inBlock.length) {
        out.push({ code: 'SF_OBSERVE_USER_VALUE', severity: 'info', file,
          message: `${HOST}: Forge's [otel] table in ${file} also holds your own ${keyList(own.inBlock)}; Forge keeps ${own.inBlock.length > 1 ? 'them' : 'it'} where ${own.inBlock.length > 1 ? 'they are' : 'it is'} on update and uninstall` });
      }
      if (own.after.length) {
        out.push({ code: 'SF_OBSERVE_USER_VALUE', severity: 'warning', file,
          message: `${HOST}: ${keyList(own.after)} after Forge's block in ${file} belong${own.after.length > 1 ? '' : 's'} to its [otel] table (in TOML a table runs to the next [header]), so Codex reads ${own.after.length > 1 ? 'them' : 'it'} as otel settings`,
          hint: 'if they are meant as top-level settings, move them above the [otel] table (or move Forge\'s block, marker line included, to the end of the file)' });
      }
    }
    if (!record?.tomlEdits.some((e) => e.file === file) && blocks.length) {
      out.push({ code: 'SF_OBSERVE_UNRECORDED', severity: 'warning', file, message: `${HOST}: ${file} has a Forge [otel] block that no install record mentions`, hint: 'run `sf observe update` to adopt it, or `sf observe uninstall` to remove it' });
    }
    return out;
  },
};
