/**
 * True for a host name (as `URL#hostname` or a Host header without its port gives it) that
 * names this machine: `localhost`, any 127.0.0.0/8 address, or IPv6 `::1` (bracketed or not).
 * The one answer to "may a credential go here over plain http" and "is this request local".
 */
export function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i.test(hostname);
}
