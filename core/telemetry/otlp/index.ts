/**
 * core/telemetry/otlp: OTLP/HTTP codec shared by the local observer and the hub's ingest — decode
 * protobuf and OTLP/JSON requests into one shape, encode requests and responses, cap bodies.
 */
export * from './types.js';
export { DEFAULT_OTLP_LIMITS, type OtlpLimits } from './limits.js';
export { decodeOtlpRequest, encodingOf, type OtlpEncoding } from './decode.js';
export { decompressBody } from './body.js';
export {
  decodeExportResponse, encodeExportResponse, encodeOtlpRequest, encodeRpcStatus, jsonObjectToProtobuf, otlpJsonObject, type PartialSuccess,
} from './encode.js';
export { requestToWire, type KindOf } from './to-wire.js';
export { idFromWire, valueToWire, attributesToWire, type NumberKind } from './value.js';
