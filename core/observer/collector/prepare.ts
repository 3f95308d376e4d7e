import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Diagnostic } from '../../errors/index.js';
import { hasErrno, SfError } from '../../errors/index.js';
import { writeFileAtomic } from '../../fs/atomic.js';
import type { ObserveConfig } from '../config.js';
import type { Target } from '../destinations.js';
import { buildCollectorConfig, renderCollectorConfig, type CollectorEnvRef } from './config.js';
import { checkCollectorConfig, mergeCollectorYaml } from './merge.js';
import { PINNED_COLLECTOR, type CollectorManifest } from './pinned.js';
import { superviseCollector, type CollectorProcess } from './supervisor.js';
import { verifyInstalledCollector } from './verify.js';

/**
 * Collector mode: when otelcol-contrib is enabled and its binary verifies, write the managed
 * config ($SF_HOME/collector/managed.yaml), check it merged with the user's conf.d fragments, and
 * run the collector; the observer then exports only to the collector's receiver. Any problem
 * returns a reason and the observer falls back to its built-in fan-out (fail open).
 */

export interface CollectorLayout {
  dir: string;
  managed: string;
  /** user-owned fragments; never written by Forge except a README on first use */
  fragments: string;
  storage: string;
  installRecord: string;
  log: string;
}

export function collectorLayout(dir: string): CollectorLayout {
  return { dir, managed: join(dir, 'managed.yaml'), fragments: join(dir, 'conf.d'), storage: join(dir, 'storage'), installRecord: join(dir, 'install.json'), log: join(dir, 'collector.log') };
}

const FRAGMENTS_README = `User-owned otelcol-contrib configuration fragments (*.yaml), loaded in name order after
../managed.yaml. Forge never edits or deletes them; \`sf observe update\` keeps them.
Maps merge with the managed file; lists (e.g. a pipeline's exporters) replace it, so restate a list in
full. Keep "redaction" in any processors list you restate, or Forge's redaction is off for that pipeline.
`;

/** Writes the managed config and returns the `--config` arguments (managed first, then fragments) plus diagnostics. */
export async function writeCollectorConfig(layout: CollectorLayout, config: ObserveConfig): Promise<{ args: string[]; env: CollectorEnvRef[]; diagnostics: Diagnostic[] }> {
  await mkdir(layout.fragments, { recursive: true, mode: 0o700 });
  await writeFile(join(layout.fragments, 'README'), FRAGMENTS_README, { flag: 'wx' }).catch((e: unknown) => (hasErrno(e, 'EEXIST') ? undefined : Promise.reject(e)));
  const built = buildCollectorConfig({ receiverPort: config.collector.port, storageDir: layout.storage, destinations: config.destinations });
  const text = renderCollectorConfig(built.config);
  await writeFileAtomic(layout.managed, text, { mode: 0o600 });
  const fragments = (await readdir(layout.fragments)).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => join(layout.fragments, f));
  const docs = [{ file: layout.managed, text }, ...(await Promise.all(fragments.map(async (file) => ({ file, text: await readFile(file, 'utf8') }))))];
  const { merged, diagnostics } = mergeCollectorYaml(docs);
  diagnostics.push(...checkCollectorConfig(merged));
  return { args: [`--config=file:${layout.managed}`, ...fragments.map((f) => `--config=file:${f}`)], env: built.env, diagnostics };
}

/** Values of the collector's environment references (read from the observer's env or protected files). */
export async function collectorEnv(refs: readonly CollectorEnvRef[], env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const out: NodeJS.ProcessEnv = { PATH: env.PATH, HOME: env.HOME };
  for (const r of refs) {
    const value = 'env' in r.from ? env[r.from.env] : (await readFile(r.from.file, 'utf8').catch(() => undefined))?.trim();
    if (value === undefined || value === '') throw new SfError('SF_E_CONFIG', `${r.name}: its source (${'env' in r.from ? `$${r.from.env}` : r.from.file}) is empty or missing`, { hint: 'set the variable or store the credential again' });
    out[r.name] = value;
  }
  return out;
}

export type PreparedCollector = { target: Target; process: CollectorProcess; close(): Promise<void> } | { problem: string };

/** Verifies, configures and starts the collector, or says why not. */
export async function prepareCollector(dir: string, config: ObserveConfig, env: NodeJS.ProcessEnv, manifest: CollectorManifest = PINNED_COLLECTOR): Promise<PreparedCollector> {
  const layout = collectorLayout(dir);
  try {
    const record = await verifyInstalledCollector(layout.installRecord, manifest);
    const { args, env: refs, diagnostics } = await writeCollectorConfig(layout, config);
    const errors = diagnostics.filter((d) => d.severity === 'error');
    if (errors.length) return { problem: `the merged collector config is invalid: ${errors.map((d) => `${d.file}: ${d.message}`).join('; ')}` };
    const childEnv = await collectorEnv(refs, env);
    const process = await superviseCollector({ binary: record.binary, args, env: childEnv, logFile: layout.log });
    const target: Target = { kind: 'http', name: 'collector', type: 'otlp', endpoint: `http://127.0.0.1:${config.collector.port}`, protocol: 'protobuf', headers: async () => ({}) };
    return { target, process, close: () => process.stop() };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}
