import { SfError } from '../../core/errors/index.js';
import { readCappedBody } from '../http/capped-body.js';

const tooLarge = (max: number) =>
  new SfError('SF_E_LIMIT', `the OTLP request body is larger than the ${max}-byte limit`, {
    hint: 'export smaller batches (e.g. lower the exporter batch size)',
    data: { maxBytes: max },
  });

/** Reads an OTLP request body with the raw-byte cap (the decompressed size is capped separately while inflating). */
export const readOtlpBody = (request: Request, max: number): Promise<Uint8Array> => readCappedBody(request, max, tooLarge);
