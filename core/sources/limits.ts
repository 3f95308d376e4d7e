import { DEFAULT_LIMITS, type ResolveOptions, type SourceLimits } from './types.js';

/** The effective limits for one resolution: defaults overridden by `options.limits`. */
export function limitsOf(options: Pick<ResolveOptions, 'limits'>): SourceLimits {
  return { ...DEFAULT_LIMITS, ...options.limits };
}
