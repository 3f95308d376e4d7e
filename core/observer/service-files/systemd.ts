import { daemonArgs, GENERATED_NOTE, SERVICE_DESCRIPTION, type ServiceSpec } from './spec.js';

/** systemd user unit text (install as ~/.config/systemd/user/sf-observer.service). Pure. */

/** Quotes one ExecStart word: double quotes when needed, `%` doubled (systemd specifiers). */
export function systemdWord(word: string): string {
  const escaped = word.replace(/%/g, '%%');
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped) ? escaped : `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The EnvironmentFile= line. systemd reads the rest of the line as one path: it expands
 * %-specifiers (so `%` is doubled) but neither unquotes nor unescapes it (a space is a space;
 * quotes or `\x20` would become part of the path; checked with systemd 252 and its
 * config_parse_unit_env_file). Only a line break cannot be written; that $SF_HOME gets a comment.
 */
export function environmentFileLine(sfHome: string): string {
  if (/[\r\n]/.test(sfHome)) return '# EnvironmentFile omitted: $SF_HOME contains a line break';
  return `EnvironmentFile=-${sfHome.replace(/%/g, '%%')}/observer.env`;
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
    // optional, user-owned: environment variables referenced by destination headers
    environmentFileLine(spec.sfHome),
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
