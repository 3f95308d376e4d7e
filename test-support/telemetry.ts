import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { InstallationRecord } from '../core/library/types.js';
import { buildSkillIndex, resolveSkill, type SkillIndex } from '../core/telemetry/enrich/skill-index.js';
import type { NormalizeContext, SessionInfo } from '../core/telemetry/normalize/index.js';
import { decodeOtlpRequest, type OtlpSignal, type OtlpRequest } from '../core/telemetry/otlp/index.js';
import { fixturesDir } from './index.js';

/** Shared fixtures of the telemetry and observer tests. */

export const GREETINGS = 'acme/greetings';
export const HELLO_HASH = `sha256:${'1'.repeat(64)}`;
export const BYE_HASH = `sha256:${'2'.repeat(64)}`;
export const BUNDLE_HASH = `sha256:${'9'.repeat(64)}`;

/** An installation of the two-skill SKIT acme/greetings@1.2.0 with the given targets. */
export function greetingsInstall(scope: 'user' | 'project', projectRoot: string | undefined, targets: { agent: string; skillRoot: string }[]): InstallationRecord {
  return {
    schema: 1, skitId: GREETINGS, provisional: false, aliases: [], scope, ...(projectRoot ? { projectRoot } : {}),
    release: { version: '1.2.0' }, bundleHash: BUNDLE_HASH,
    skills: [
      { name: 'hello-skill', id: `${GREETINGS}:hello-skill`, hash: HELLO_HASH, path: 'skills/hello-skill', defaultEnabled: true },
      { name: 'bye-skill', id: `${GREETINGS}:bye-skill`, hash: BYE_HASH, path: 'skills/bye-skill', defaultEnabled: true },
    ],
    enablement: {},
    targets: targets.map((t) => ({
      agent: t.agent, scope, ...(projectRoot ? { projectRoot } : {}), skillRoot: t.skillRoot, configEdits: [],
      paths: ['hello-skill', 'bye-skill'].map((n) => ({ skillId: `${GREETINGS}:${n}`, path: join(t.skillRoot, n), mode: 'symlink' as const })),
    })),
    source: { kind: 'hub', canonical: 'hub:acme/greetings', fingerprint: 'f'.repeat(64) },
    installerVersion: '0.1.0', installedAt: '2026-11-30T00:00:00.000Z', updatedAt: '2026-11-30T00:00:00.000Z',
  };
}

/** The project the captures ran in, as the research runs named it. */
export const CAPTURE_PROJECT = '$WORK/proj';
export const OPENCODE_PROJECT = '$WORK/oc2/proj';

/** A library where acme/greetings is installed for Claude Code, Codex and OpenCode in the capture projects. */
export function captureLibrary(): SkillIndex {
  return buildSkillIndex([
    greetingsInstall('project', `/${CAPTURE_PROJECT}`, [
      { agent: 'claude-code', skillRoot: `/${CAPTURE_PROJECT}/.claude/skills` },
      { agent: 'codex', skillRoot: `/${CAPTURE_PROJECT}/.agents/skills` },
    ]),
    greetingsInstall('project', `/${OPENCODE_PROJECT}`, [{ agent: 'opencode', skillRoot: `/${OPENCODE_PROJECT}/.opencode/skills` }]),
    greetingsInstall('user', undefined, [{ agent: 'claude-code', skillRoot: '/$WORK/home/.claude/skills' }]),
  ]);
}

/** A deterministic normalize context: a clock advancing 1 ms per call, fixed sessions. */
export function fakeContext(index: SkillIndex, sessions: Record<string, SessionInfo> = {}, options: { content?: boolean; start?: bigint } = {}): NormalizeContext & { clock: { t: bigint } } {
  const clock = { t: options.start ?? 1_796_000_000_000_000_000n };
  return {
    clock,
    observer: 'sf-observer',
    adapterVersion: '0.1.0',
    content: options.content ?? false,
    now: () => (clock.t += 1_000_000n).toString(),
    resolveSkill: (q) => resolveSkill(index, q),
    session: (_host, id) => (id ? sessions[id] : undefined),
  };
}

/** Decodes a capture file of fixtures/host-otlp. */
export async function captureRequest(run: string, signal: OtlpSignal): Promise<OtlpRequest> {
  return decodeOtlpRequest(signal, await readFile(join(fixturesDir, 'host-otlp', run, `${signal}.json`)), 'json');
}

/** Compares `value` with the JSON golden file at `path` (UPDATE_GOLDEN=1 rewrites it). */
export async function expectGoldenJson(path: string, value: unknown): Promise<void> {
  const text = JSON.stringify(value, null, 2) + '\n';
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    if (process.env.UPDATE_GOLDEN !== '1') assert.fail(`golden file ${path} is missing; run with UPDATE_GOLDEN=1 to create it, then review it`);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    return;
  }
  assert.deepEqual(JSON.parse(text), JSON.parse(await readFile(path, 'utf8')), `differs from ${path} (UPDATE_GOLDEN=1 rewrites it)`);
}
