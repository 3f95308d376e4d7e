/**
 * core/observer: the local observer service (see core/telemetry/README.md for the contracts).
 * Entry points for `sf observe ...` commands and host adapters.
 */
export { startObserver, type ObserverHandle, type ObserverOptions } from './service.js';
export { observerPaths, type ObserverPaths } from './paths.js';
export {
  DEFAULT_OBSERVE_CONFIG, parseObserveConfig, readObserveConfig, updateObserveConfig,
  type DestinationConfig, type FileDestination, type HeaderValue, type HubDestination, type ObserveConfig, type OtlpDestination, type RepositoryLink,
} from './config.js';
export { sendObserverMessage } from './socket-client.js';
export { readObserverStatus, type ObserverStatus, type DestinationStatus } from './status.js';
export { resolveTargets, type Target } from './destinations.js';
export { runCanary } from './canary.js';
export { readPid, runningHolder } from './lock.js';
export { gitFacts, type GitFacts } from './repo/git-facts.js';
export { repoIdentity, matchLink, type RepoIdentity } from './repo/fingerprint.js';
export { normalizeRemote } from './repo/remote.js';
export { BLOCKED_KEY_PATTERN, BLOCKED_VALUE_PATTERNS, redactAttributes } from './redact.js';
