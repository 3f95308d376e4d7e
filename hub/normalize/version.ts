/**
 * Version of the normalizer code (event extraction, dedupe, projection folding). Every derived
 * row records it. Bump it when a change alters what the projections contain; the hub then
 * rebuilds a new projection generation from the retained raw batches (hub/normalize/rebuild.ts).
 */
export const NORMALIZER_VERSION = '1.12.0';
