import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { hasErrno } from '../errors/index.js';
import { removeFileDurable, writeFileAtomic } from '../fs/atomic.js';
import { userHome } from '../library/paths.js';
import { launchdPlist, LAUNCHD_PLIST_NAME, systemdUnit, SYSTEMD_UNIT_NAME, type ServiceSpec } from './service-files/index.js';

/**
 * Installs the observer as a per-user service: a systemd user unit, written and enabled with
 * `systemctl --user` when a user manager answers; elsewhere the generated service file is written
 * under $SF_HOME/observe/service/ and the outcome says how to load it (or to run
 * `sf observe daemon` yourself). The unit is Forge's file: removed only while it holds Forge's bytes.
 */

export interface ServiceRecord {
  kind: 'systemd' | 'none';
  unitFile?: string;
  unitName?: string;
  sha256?: string;
  enabled: boolean;
}

export interface ServiceOutcome {
  kind: 'systemd' | 'none';
  enabled: boolean;
  /** one line for the user */
  message: string;
  record?: ServiceRecord;
}

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** Runs `systemctl --user ...` (3 s limit); true on exit 0. */
function systemctl(args: string[], env: NodeJS.ProcessEnv): { ok: boolean; detail: string } {
  const r = spawnSync('systemctl', ['--user', ...args], { env, timeout: 3000, encoding: 'utf8' });
  return { ok: r.status === 0, detail: (r.error?.message ?? r.stderr ?? '').trim().split('\n')[0] ?? '' };
}

/** True when a systemd user manager answers. */
export function systemdUserAvailable(env: NodeJS.ProcessEnv): boolean {
  return process.platform === 'linux' && systemctl(['show-environment'], env).ok;
}

export const systemdUnitPath = (env: NodeJS.ProcessEnv): string => join(env.XDG_CONFIG_HOME || join(userHome(env), '.config'), 'systemd', 'user', SYSTEMD_UNIT_NAME);

async function readOrUndefined(p: string): Promise<Buffer | undefined> {
  try {
    return await readFile(p);
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
}

/** Writes (or refreshes) the service and starts it. */
export async function installUserService(spec: ServiceSpec, env: NodeJS.ProcessEnv, previous?: ServiceRecord): Promise<ServiceOutcome> {
  if (!systemdUserAvailable(env)) {
    const dir = join(spec.sfHome, 'observe', 'service');
    const mac = process.platform === 'darwin';
    const file = join(dir, mac ? LAUNCHD_PLIST_NAME : SYSTEMD_UNIT_NAME);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const text = mac ? launchdPlist(spec) : systemdUnit(spec);
    await writeFileAtomic(file, text, { mode: 0o644 });
    // recorded, so uninstall takes the generated file away again
    const generated: ServiceRecord = { kind: 'none', unitFile: file, sha256: sha(text), enabled: false };
    const how = mac
      ? `copy ${file} to ~/Library/LaunchAgents/ and run \`launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/${LAUNCHD_PLIST_NAME}\``
      : `install ${file} as a service yourself, or keep \`sf observe daemon\` running (e.g. from your session startup)`;
    return { kind: 'none', enabled: false, record: generated, message: `no systemd user manager here; ${how}` };
  }
  const unitFile = systemdUnitPath(env);
  const text = systemdUnit(spec);
  const cur = await readOrUndefined(unitFile);
  if (cur && sha(cur) !== sha(text) && previous?.unitFile !== unitFile) {
    return { kind: 'none', enabled: false, message: `${unitFile} exists and is not Forge's; left as it is (move it away and run \`sf observe update\`)` };
  }
  if (!cur || sha(cur) !== sha(text)) {
    await mkdir(dirname(unitFile), { recursive: true });
    await writeFileAtomic(unitFile, text, { mode: 0o644 });
  }
  const record: ServiceRecord = { kind: 'systemd', unitFile, unitName: SYSTEMD_UNIT_NAME, sha256: sha(text), enabled: false };
  for (const step of [['daemon-reload'], ['enable', SYSTEMD_UNIT_NAME], ['restart', SYSTEMD_UNIT_NAME]]) {
    const r = systemctl(step, env);
    if (!r.ok) return { kind: 'systemd', enabled: false, record, message: `wrote ${unitFile}, but \`systemctl --user ${step.join(' ')}\` failed: ${r.detail}` };
  }
  return { kind: 'systemd', enabled: true, record: { ...record, enabled: true }, message: `systemd user unit ${SYSTEMD_UNIT_NAME} enabled and (re)started` };
}

/** Stops, disables and removes Forge's unit (a unit the user changed is disabled but kept). */
export async function removeUserService(record: ServiceRecord | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  if (record?.kind === 'none' && record.unitFile) {
    // the service file generated for the user to install: Forge's while it holds Forge's bytes
    const cur = await readOrUndefined(record.unitFile);
    if (cur && sha(cur) !== record.sha256) return `no service was installed; ${record.unitFile} was changed after Forge wrote it and was kept`;
    if (cur) await removeFileDurable(record.unitFile);
    return `no service was installed; removed the generated ${record.unitFile}`;
  }
  if (!record || record.kind !== 'systemd' || !record.unitFile) return 'no service was installed';
  systemctl(['disable', '--now', record.unitName ?? SYSTEMD_UNIT_NAME], env);
  const cur = await readOrUndefined(record.unitFile);
  if (cur && sha(cur) !== record.sha256) return `disabled ${record.unitName}; ${record.unitFile} was changed after Forge wrote it and was kept`;
  if (cur) await removeFileDurable(record.unitFile);
  systemctl(['daemon-reload'], env);
  return `stopped, disabled and removed ${record.unitName}`;
}

/** Drift of the installed unit: missing, changed, or not active. */
export function serviceState(record: ServiceRecord | undefined, env: NodeJS.ProcessEnv): { active?: boolean } {
  if (!record || record.kind !== 'systemd') return {};
  return { active: systemctl(['is-active', '--quiet', record.unitName ?? SYSTEMD_UNIT_NAME], env).ok };
}

export async function unitChanged(record: ServiceRecord | undefined): Promise<'missing' | 'changed' | undefined> {
  if (!record?.unitFile) return undefined;
  const cur = await readOrUndefined(record.unitFile);
  if (!cur) return 'missing';
  return sha(cur) !== record.sha256 ? 'changed' : undefined;
}
