import assert from 'node:assert/strict';
import { otelHostArch, otelOsType } from './host-resource.js';

describe('host.arch and os.type take OpenTelemetry values, not Node names', () => {
  it('maps Node architectures to OTel host.arch values', () => {
    const cases = { x64: 'amd64', ia32: 'x86', arm: 'arm32', arm64: 'arm64', ppc: 'ppc32', ppc64: 'ppc64', s390x: 's390x', riscv64: 'riscv64' };
    for (const [node, otel] of Object.entries(cases)) assert.equal(otelHostArch(node), otel, node);
    assert.equal(otelHostArch('constructor'), 'constructor', 'own properties only');
  });

  it('maps Node platforms to OTel os.type values', () => {
    const cases = { win32: 'windows', darwin: 'darwin', linux: 'linux', sunos: 'solaris', freebsd: 'freebsd', openbsd: 'openbsd', aix: 'aix' };
    for (const [node, otel] of Object.entries(cases)) assert.equal(otelOsType(node), otel, node);
  });
});
