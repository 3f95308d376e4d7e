/**
 * Limits applied to every OTLP payload Forge decodes (observer receiver and hub ingest alike).
 * Numbers follow research/reliability-anchors.md §7; each is overridable per call.
 */
export interface OtlpLimits {
  /** raw and decompressed body size */
  maxBodyBytes: number;
  /** attributes kept per item (resource, scope, record, span, point); the rest are counted as dropped */
  maxAttributes: number;
  /** AnyValue nesting depth; deeper values are replaced by null and counted as dropped */
  maxValueDepth: number;
  /** characters kept of a string value */
  maxStringLength: number;
  /**
   * log records or spans decoded per request (unset: all); the ones after are skipped without
   * being built and counted (`overLimit`), so an oversized batch costs a scan, not memory
   */
  maxItems?: number;
}

export const DEFAULT_OTLP_LIMITS: OtlpLimits = {
  maxBodyBytes: 20 * 1024 * 1024,
  maxAttributes: 128,
  maxValueDepth: 64,
  maxStringLength: 16 * 1024,
};
