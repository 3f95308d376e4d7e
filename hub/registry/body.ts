import { SfError } from '../../core/errors/index.js';
import { readCappedBody } from '../http/capped-body.js';

const tooLarge = (max: number) =>
  new SfError('SF_E_LIMIT', `the upload is larger than the limit of ${max} bytes`, {
    hint: 'make the SKIT smaller (or ask the hub operator to raise maxUploadBytes)',
    data: { limit: 'maxUploadBytes', maxBytes: max },
  });

/** Reads a release upload with the registry's hard cap (413 SF_E_LIMIT, nothing kept). */
export const readUploadBody = (request: Request, max: number): Promise<Buffer> => readCappedBody(request, max, tooLarge);
