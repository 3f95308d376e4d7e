import { parse } from 'yaml';
import type { Diagnostic } from '../../errors/index.js';

/**
 * The merged view of the managed collector config and the user's conf.d fragments, with the same
 * rules as otelcol's `--config` merging (maps deep-merge in order, lists are replaced), and the
 * structural checks Forge runs before (re)starting the collector: every pipeline component is
 * defined, and any pipeline without the `redaction` processor is reported.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep-merges `b` over `a` (maps merge, everything else replaces). */
export function mergeConfig(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObj(v) && isObj(out[k]) ? mergeConfig(out[k] as Obj, v) : v;
  return out;
}

/** Parses and merges the managed YAML and fragments (in order); YAML errors become diagnostics. */
export function mergeCollectorYaml(docs: readonly { file: string; text: string }[]): { merged: Obj; diagnostics: Diagnostic[] } {
  let merged: Obj = {};
  const diagnostics: Diagnostic[] = [];
  for (const { file, text } of docs) {
    let value: unknown;
    try {
      value = parse(text, { maxAliasCount: 100 }) ?? {};
    } catch (e) {
      diagnostics.push({ code: 'SF_COLLECTOR_YAML', severity: 'error', file, message: `not valid YAML: ${(e as Error).message}`, hint: 'fix the fragment or remove it' });
      continue;
    }
    if (!isObj(value)) {
      diagnostics.push({ code: 'SF_COLLECTOR_YAML', severity: 'error', file, message: 'a collector config fragment must be a YAML map', hint: 'fix the fragment or remove it' });
      continue;
    }
    merged = mergeConfig(merged, value);
  }
  return { merged, diagnostics };
}

/** Structural checks of a merged config. */
export function checkCollectorConfig(merged: Obj, file = 'collector config'): Diagnostic[] {
  const out: Diagnostic[] = [];
  const defined = (kind: string) => new Set(Object.keys(isObj(merged[kind]) ? (merged[kind] as Obj) : {}));
  const service = isObj(merged.service) ? merged.service : {};
  for (const ext of Array.isArray(service.extensions) ? service.extensions : []) {
    if (!defined('extensions').has(String(ext))) out.push({ code: 'SF_COLLECTOR_UNDEFINED', severity: 'error', file, message: `service.extensions names "${String(ext)}", which is not defined`, hint: 'define it under extensions: or remove it from service.extensions' });
  }
  const pipelines = isObj(service.pipelines) ? service.pipelines : {};
  for (const [name, p] of Object.entries(pipelines)) {
    if (!isObj(p)) continue;
    for (const kind of ['receivers', 'processors', 'exporters'] as const) {
      for (const id of Array.isArray(p[kind]) ? (p[kind] as unknown[]) : []) {
        const known = kind === 'processors' ? defined('processors') : new Set([...defined(kind), ...defined('connectors')]);
        if (!known.has(String(id))) out.push({ code: 'SF_COLLECTOR_UNDEFINED', severity: 'error', file, message: `pipeline ${name} uses ${kind.slice(0, -1)} "${String(id)}", which is not defined`, hint: `define it under ${kind}: in a fragment` });
      }
    }
    const processors = Array.isArray(p.processors) ? p.processors.map(String) : [];
    if (!processors.includes('redaction')) {
      out.push({ code: 'SF_COLLECTOR_REDACTION_OFF', severity: 'warning', file, message: `pipeline ${name} does not run Forge's redaction processor: its metadata redaction and managed-upgrade guarantees are off`, hint: 'keep "redaction" in the processors list of pipelines you restate' });
    }
  }
  return out;
}
