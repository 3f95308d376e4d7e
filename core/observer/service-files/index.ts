/** Service definitions that run `sf observe daemon` under each OS's user service manager. */
export { daemonArgs, SERVICE_LABEL, type ServiceSpec } from './spec.js';
export { systemdUnit, systemdWord, SYSTEMD_UNIT_NAME } from './systemd.js';
export { launchdPlist, LAUNCHD_PLIST_NAME } from './launchd.js';
export { encodeTaskXml, windowsArg, windowsTaskXml, WINDOWS_TASK_NAME } from './windows-task.js';
