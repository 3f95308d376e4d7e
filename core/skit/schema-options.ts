/**
 * The ajv options every schema check in Forge uses. One definition for the precompiled validators
 * (scripts/gen/validators.ts) and the run-time fallback (core/skit/schemas.ts), so both report the
 * same findings: all errors, strict schemas, and `verbose` for the offending data and sub-schema.
 */
export const AJV_OPTIONS = { allErrors: true, strict: true, verbose: true } as const;
