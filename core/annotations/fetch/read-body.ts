import { SfError } from '../../errors/index.js';
import { readCappedResponse } from '../../runtime/read-capped-response.js';

export interface ReadBodyOptions {
  /** most bytes read */
  limit: number;
  /** keep the first `limit` bytes (an error message) instead of failing with SF_E_LIMIT */
  truncate: boolean;
  /** `GET {url}`, for the message */
  what: string;
}

function tooLarge(what: string, limit: number): SfError {
  const size = limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${limit} bytes`;
  return new SfError('SF_E_LIMIT', `${what} returned more than ${size}`, {
    hint: 'this is not a comment page a forge’s REST API sends; check --api, or lower --per-page',
    data: { limit },
  });
}

/** Reads a response body as UTF-8, at most `limit` bytes (see readCappedResponse). */
export async function readBody(res: Response, options: ReadBodyOptions): Promise<string> {
  const { limit, truncate, what } = options;
  return (await readCappedResponse(res, limit, () => tooLarge(what, limit), truncate)).toString('utf8');
}
