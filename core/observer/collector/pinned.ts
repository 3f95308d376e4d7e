/**
 * The pinned otelcol-contrib release Forge generates configuration for and verifies. The sha256
 * values are those of the upstream release archives (opentelemetry-collector-releases v0.159.0,
 * published per artifact as `<archive>.sha256` since v0.158.0). They were taken from public pins
 * of this release (the linux_amd64 value agrees across two independent pins); re-check them
 * against the release page whenever the pin moves. Never downloaded at build, test or run time.
 */

export interface CollectorArchive {
  name: string;
  url: string;
  sha256: string;
}

export interface CollectorManifest {
  version: string;
  /** platform key (`<os>_<arch>` as in the asset names) -> archive */
  archives: Readonly<Record<string, CollectorArchive>>;
  /** config component names changed in v0.144.0 (otlp_http); the generator targets this pin */
  minConfigVersion: string;
}

const base = 'https://github.com/open-telemetry/opentelemetry-collector-releases/releases/download/v0.159.0';
const archive = (platform: string, sha256: string): CollectorArchive => ({ name: `otelcol-contrib_0.159.0_${platform}.tar.gz`, url: `${base}/otelcol-contrib_0.159.0_${platform}.tar.gz`, sha256 });

export const PINNED_COLLECTOR: CollectorManifest = {
  version: '0.159.0',
  minConfigVersion: '0.144.0',
  archives: {
    linux_amd64: archive('linux_amd64', '9d589f6349f01179957a2052bc7307a99db2efc971e14e00575941a77122eaaf'),
    darwin_arm64: archive('darwin_arm64', '7e317b75b1b087ba2150bf95d79e39a394d0d091f1231af6bbebee895d200375'),
    darwin_amd64: archive('darwin_amd64', 'c683fc414117b8477794dcd7591e84e61cbef1e2ff8817afb6fd622e7fb5c0d9'),
  },
};
