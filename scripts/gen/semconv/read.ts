import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { RegistryError } from './model.js';

/** Where the registry lives, relative to the repository root. */
export const REGISTRY_DIR = 'schemas/semconv';
export const MANIFEST_FILE = 'schemas/semconv/registry_manifest.yaml';
/** Offline facts about the referenced OTel attributes; outside REGISTRY_DIR so Weaver never loads it. */
export const PINS_FILE = 'schemas/semconv-pins.yaml';

export type RawObject = Record<string, unknown>;

export interface RawGroupFile {
  /** repository-relative POSIX path */
  file: string;
  groups: RawObject[];
}

export interface RawRegistry {
  manifest: RawObject;
  pins: RawObject;
  files: RawGroupFile[];
}

export function isObject(value: unknown): value is RawObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readYaml(root: string, rel: string): Promise<unknown> {
  const text = await readFile(path.join(root, rel), 'utf8');
  try {
    return parse(text);
  } catch (e) {
    throw new RegistryError([`${rel}: not valid YAML: ${(e as Error).message}`]);
  }
}

async function listYaml(root: string, relDir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(path.join(root, relDir), { withFileTypes: true });
  for (const entry of entries) {
    const rel = `${relDir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await listYaml(root, rel)));
    else if (entry.isFile() && /\.ya?ml$/.test(entry.name) && rel !== MANIFEST_FILE) out.push(rel);
  }
  return out;
}

/**
 * Read the manifest, the pins and every group file under schemas/semconv (recursively, the way Weaver
 * loads a registry directory), in sorted path order so the result never depends on directory order.
 */
export async function readRawRegistry(root: string): Promise<RawRegistry> {
  const problems: string[] = [];
  const manifest = await readYaml(root, MANIFEST_FILE);
  if (!isObject(manifest)) problems.push(`${MANIFEST_FILE}: expected a YAML mapping`);
  const pins = await readYaml(root, PINS_FILE);
  if (!isObject(pins)) problems.push(`${PINS_FILE}: expected a YAML mapping`);

  const files: RawGroupFile[] = [];
  const rels = (await listYaml(root, REGISTRY_DIR)).sort();
  for (const rel of rels) {
    const doc = await readYaml(root, rel);
    if (!isObject(doc) || !Array.isArray(doc.groups)) {
      problems.push(`${rel}: expected a mapping with a \`groups\` list (Weaver semantic convention file)`);
      continue;
    }
    const groups: RawObject[] = [];
    doc.groups.forEach((g, i) => {
      if (isObject(g)) groups.push(g);
      else problems.push(`${rel}: groups[${i}] is not a mapping`);
    });
    files.push({ file: rel, groups });
  }
  if (problems.length > 0) throw new RegistryError(problems);
  return { manifest: manifest as RawObject, pins: pins as RawObject, files };
}
