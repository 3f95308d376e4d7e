export { ERROR_CODES, exitCodeFor, httpStatusFor, type ErrorCode, type ErrorCodeInfo } from './codes.js';
export { SfError, isSfError, hasErrno, type ErrorLocation, type SfErrorOptions } from './sf-error.js';
export { hasErrors, sortDiagnostics, type Diagnostic, type Severity } from './diagnostic.js';
export { diskFullAt, fromSystemError, leftStderrLineOpen, systemErrorAbout } from './system.js';
