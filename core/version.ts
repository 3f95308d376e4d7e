/** The installer/toolkit version recorded in install state and telemetry (agent.adapter.version etc.). */
export const FORGE_VERSION = '0.1.0';
