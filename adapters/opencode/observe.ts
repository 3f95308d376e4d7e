import { join } from 'node:path';
import type { Diagnostic } from '../../core/errors/index.js';
import type { HostContext } from '../../core/install/host-adapter.js';
import { FORGE_VERSION } from '../../core/version.js';
import { pathExists } from '../config/detect.js';
import { diagnoseManagedFile, removeManagedFile, writeManagedFile } from '../observe/managed-file.js';
import { assertWriteStaysInHome } from '../observe/home-links.js';
import type { ObserveContext, ObserveHostAdapter } from '../observe/types.js';
import { createOpenCodeAdapter } from './adapter.js';
import { renderOpenCodePlugin } from './observe-plugin.js';
import { opencodeConfigDir } from './permission.js';

/**
 * OpenCode observability: OpenCode emits no skill telemetry of its own, so Forge installs one
 * global plugin file (`<config dir>/plugins/forge-observe.js`) that reports the native `skill`
 * tool's calls to the observer. No config file is edited; other plugins (Git AI's git-ai.ts
 * among them) are separate files and stay untouched.
 */

const HOST = 'OpenCode';
const hostCtx = (ctx: ObserveContext): HostContext => ({ home: ctx.home, env: ctx.env, scope: 'user', backupDir: ctx.backupDir });

export const opencodePluginPath = (ctx: ObserveContext): string => join(opencodeConfigDir(hostCtx(ctx)), 'plugins', 'forge-observe.js');

export const opencodeObserveAdapter: ObserveHostAdapter = {
  id: 'opencode',
  displayName: HOST,
  signal: 'a Forge plugin posting skill tool events (skill name, call id, load result, byte count) to the observer',
  fidelity: 'exact: the plugin reports the directory each skill was loaded from',
  detect: (ctx) => createOpenCodeAdapter().detect(hostCtx(ctx)),
  targets: (ctx) => [opencodePluginPath(ctx)],

  async apply(ctx, previous) {
    const path = opencodePluginPath(ctx);
    assertWriteStaysInHome(path, ctx.home, 'the OpenCode plugin file');
    const res = await writeManagedFile(path, renderOpenCodePlugin(ctx.port, join(ctx.spoolDir, 'opencode.jsonl'), FORGE_VERSION), 0o644, previous?.files.find((f) => f.path === path), ctx.backupDir);
    return {
      record: { agent: 'opencode', version: FORGE_VERSION, appliedAt: new Date().toISOString(), port: ctx.port, jsonEdits: [], tomlEdits: [], files: res.file ? [res.file] : [] },
      diagnostics: res.diagnostics,
    };
  },

  async remove(_ctx, record) {
    const out: Diagnostic[] = [];
    for (const f of record.files) out.push(...(await removeManagedFile(f)));
    return out;
  },

  async diagnose(ctx, record) {
    const path = opencodePluginPath(ctx);
    const file = record?.files.find((f) => f.path === path);
    if (file) return diagnoseManagedFile(file, 'the Forge OpenCode plugin');
    if (await pathExists(path)) return [{ code: 'SF_OBSERVE_UNRECORDED', severity: 'warning', file: path, message: `${path} exists but no install record mentions it`, hint: 'run `sf observe update` to adopt it, or delete it' }];
    return [{ code: 'SF_OBSERVE_DRIFT', severity: 'error', file: path, message: `the Forge OpenCode plugin ${path} is missing`, hint: 'run `sf observe update` to write it again' }];
  },
};
