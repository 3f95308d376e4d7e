import { xmlEscape } from './launchd.js';
import { daemonArgs, GENERATED_NOTE, SERVICE_DESCRIPTION, type ServiceSpec } from './spec.js';

/**
 * Windows Task Scheduler definition (register with `schtasks /Create /TN "Forge\sf-observer"
 * /XML <file>`): starts at logon of the user, restarts on failure, no time limit. Task Scheduler
 * expects the file in UTF-16; write it with `encodeTaskXml`. Pure.
 */

/** Quotes one argument for a Windows command line (CommandLineToArgvW rules). */
export function windowsArg(arg: string): string {
  if (arg !== '' && !/[\s"]/.test(arg)) return arg;
  return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

export const WINDOWS_TASK_NAME = '\\Forge\\sf-observer';

export function windowsTaskXml(spec: ServiceSpec): string {
  const user = spec.userId ? `\n      <UserId>${xmlEscape(spec.userId)}</UserId>` : '';
  return `<?xml version="1.0" encoding="UTF-16"?>
<!-- ${xmlEscape(GENERATED_NOTE)} -->
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>${xmlEscape(SERVICE_DESCRIPTION)}</Description>
    <URI>${xmlEscape(WINDOWS_TASK_NAME)}</URI>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>${user}
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">${user}
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <StartWhenAvailable>true</StartWhenAvailable>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>999</Count>
    </RestartOnFailure>
    <Hidden>true</Hidden>
    <Enabled>true</Enabled>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>${xmlEscape(spec.node)}</Command>
      <Arguments>${xmlEscape(daemonArgs(spec).map(windowsArg).join(' '))}</Arguments>
    </Exec>
  </Actions>
</Task>
`;
}

/** The bytes Task Scheduler reads: UTF-16LE with a byte-order mark, CRLF line ends. */
export function encodeTaskXml(xml: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml.replace(/\r?\n/g, '\r\n'), 'utf16le')]);
}
