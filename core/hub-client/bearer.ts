import { SfError } from '../errors/index.js';

/**
 * Where a hub token came from, for errors that must name it without showing it: `stdin`,
 * `SF_HUB_TOKEN`, or the path of the credentials file.
 */
export type TokenSource = 'stdin' | 'SF_HUB_TOKEN' | (string & {});

/** RFC 6750 b64token: the only text a bearer credential may be. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * `raw` as it may go into `Authorization: Bearer ...`: surrounding whitespace trimmed, one
 * b64token. Anything else (a pasted transcript, two lines, a space) is refused before any
 * request, as SF_E_AUTH naming `source`: fetch would otherwise reject the header with a message
 * that quotes it, token and all.
 */
export function bearerToken(raw: string, source: TokenSource | undefined, hub = '<url>'): string {
  const token = raw.trim();
  if (B64TOKEN.test(token)) return token;
  const what = source === undefined ? 'the hub token' : source === 'stdin' ? 'the token read from stdin' : source === 'SF_HUB_TOKEN' ? 'SF_HUB_TOKEN' : `the token stored in ${source}`;
  throw new SfError('SF_E_AUTH', `${what} is not a bearer token: it must be one line of letters, digits and -._~+/ only (the value is not shown)`, {
    hint: hintFor(source, hub),
    ...(source === undefined ? {} : { data: { source } }),
  });
}

function hintFor(source: TokenSource | undefined, hub: string): string {
  if (source === 'stdin') return `pipe only the token, e.g. \`sf hub admin create-user <login> > token.txt\`, then \`sf login --hub ${hub} < token.txt\``;
  if (source === 'SF_HUB_TOKEN') return 'set SF_HUB_TOKEN to only the token, or unset it to use the stored login';
  return `run \`sf login --hub ${hub}\` again with only the token on stdin`;
}

/**
 * `text` without `secret`: for messages of errors thrown below a request that may quote a header
 * value, so that even an unexpected one never carries the token out.
 */
export function withoutSecret(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('<token>') : text;
}
