import { realpathSync } from 'node:fs';
import { installUserService as install, type ServiceOutcome, type ServiceRecord } from '../../../core/observer/user-service.js';
import type { ServiceSpec } from '../../../core/observer/service-files/index.js';
import type { ObserveState } from './shared.js';

export type { ServiceOutcome };

/** The service runs this very CLI (`<node> <sf.js> observe daemon --sf-home <dir>`). */
export function serviceSpec(state: ObserveState): ServiceSpec {
  return { node: process.execPath, sfScript: realpathSync(process.argv[1]), sfHome: state.paths.home };
}

export function installUserService(state: ObserveState, previous: ServiceRecord | undefined): Promise<ServiceOutcome> {
  return install(serviceSpec(state), state.env, previous);
}
