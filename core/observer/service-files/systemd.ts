import { daemonArgs, GENERATED_NOTE, SERVICE_DESCRIPTION, type ServiceSpec } from './spec.js';

/** systemd user unit text (install as ~/.config/systemd/user/sf-observer.service). Pure. */

/** Quotes one ExecStart word: double quotes when needed, `%` doubled (systemd specifiers). */
export function systemdWord(word: string): string {
  const escaped = word.replace(/%/g, '%%');
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped) ? escaped : `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export const SYSTEMD_UNIT_NAME = 'sf-observer.service';

export function systemdUnit(spec: ServiceSpec): string {
  const exec = [spec.node, ...daemonArgs(spec)].map(systemdWord).join(' ');
  return [
    `# ${GENERATED_NOTE}`,
    '[Unit]',
    `Description=${SERVICE_DESCRIPTION}`,
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec}`,
    // optional, user-owned: environment variables referenced by destination headers. systemd takes
    // this path unquoted, so a $SF_HOME with whitespace gets no env file line rather than a broken one
    /\s/.test(spec.sfHome) ? '# EnvironmentFile omitted: $SF_HOME contains whitespace' : `EnvironmentFile=-${spec.sfHome.replace(/%/g, '%%')}/observer.env`,
    'Restart=on-failure',
    'RestartSec=5',
    'UMask=0077',
    'NoNewPrivileges=true',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}
