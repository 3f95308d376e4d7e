/**
 * Bytes validation looks at in a file that is not read in full: enough to see a `#!` line start.
 * The hash threads keep this many bytes of every file they hash, so `sf skit hash` validates
 * without opening each file a second time.
 */
export const HEAD_BYTES = 16;
