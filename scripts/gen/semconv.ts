import { mdHeader, tsHeader, type GeneratedFile } from './files.js';
import { loadRegistry } from './semconv/load.js';
import { renderSemconvMd } from './semconv/render-md.js';
import { renderSemconvTs } from './semconv/render-ts.js';
import { PINS_FILE, REGISTRY_DIR } from './semconv/read.js';

const SOURCE = `${REGISTRY_DIR}/ and ${PINS_FILE}`;

/**
 * Read the Weaver-format registry directly (no Weaver binary) and produce
 * schemas/generated/semconv.ts (constants, enum unions, event catalog, metrics, spans, pins)
 * and docs/semconv.md (readable tables).
 */
export async function generateSemconv(root: string): Promise<GeneratedFile[]> {
  const registry = await loadRegistry(root);
  return [
    { path: 'schemas/generated/semconv.ts', content: renderSemconvTs(registry, tsHeader(SOURCE)) },
    { path: 'docs/semconv.md', content: renderSemconvMd(registry, mdHeader(SOURCE)) },
  ];
}
