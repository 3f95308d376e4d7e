import { daemonArgs, GENERATED_NOTE, SERVICE_LABEL, type ServiceSpec } from './spec.js';

/** launchd agent plist (install as ~/Library/LaunchAgents/dev.forge.sf.observer.plist). Pure. */

export const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const LAUNCHD_PLIST_NAME = `${SERVICE_LABEL}.plist`;

export function launchdPlist(spec: ServiceSpec): string {
  const args = [spec.node, ...daemonArgs(spec)].map((a) => `    <string>${xmlEscape(a)}</string>`).join('\n');
  const log = xmlEscape(`${spec.sfHome}/run/observer.log`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- ${xmlEscape(GENERATED_NOTE)} -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${SERVICE_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ThrottleInterval</key>
  <integer>5</integer>
  <key>ProcessType</key>
  <string>Background</string>
  <key>Umask</key>
  <integer>63</integer>
  <key>StandardOutPath</key>
  <string>${log}</string>
  <key>StandardErrorPath</key>
  <string>${log}</string>
</dict>
</plist>
`;
}
