/**
 * Config files are written with the crash-safe primitives of core/fs/atomic.ts (temp sibling,
 * fsync, exact mode and owner kept, rename, directory fsync; symlinked configs keep their link).
 */
export { fsyncDir, mkdirDurableSync, removeFileDurable, resolveWriteTarget, writeFileAtomic } from '../../core/fs/atomic.js';

/** Mode for config files Forge creates from nothing (the host would create them like this too). */
export const NEW_FILE_MODE = 0o644;
