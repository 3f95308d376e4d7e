/**
 * OTLP/JSON text to a wire object, keeping int64 fields sent as JSON number literals exact.
 *
 * The proto3 JSON mapping encodes int64 as a decimal string, but parsers also accept a number
 * literal (docs/hub-telemetry.md: "int64 as string or number"). `JSON.parse` reads a literal as a
 * double, so a nanosecond time or an `intValue` beyond 2^53 would be silently rounded (Node 20's
 * reviver has no access to the source text). Before parsing, the int64 fields the decoder keeps
 * exactly (times, `intValue`, `asInt`) have their long integer literals quoted, which the decoder
 * reads as it reads the string form. Histogram and summary counts are numbers in the decoded model
 * anyway, so they are left as they are.
 */

/** Int64 fields whose value the decoder keeps exactly (from-wire.ts `nanos`, value.ts `int64FromWire`). */
const INT64_FIELDS = ['timeUnixNano', 'observedTimeUnixNano', 'startTimeUnixNano', 'endTimeUnixNano', 'intValue', 'asInt'];

/**
 * A long (16 or more digits: every unsafe integer has them) integer literal outside a string: after
 * a colon, a comma or a bracket. Strings (the usual, quoted form of times) never match: a quote
 * stands between the colon and the digits.
 */
const LONG_LITERAL = /[:,[][ \t\r\n]*-?\d{16}/;

/**
 * A long integer literal as the value of an int64 field. The key's opening quote is not escaped
 * (a key merely ending in the field's name, `"a\"timeUnixNano"`, does not match; in valid JSON a
 * real quote cannot follow a backslash before a name and its closing quote), and the literal is
 * an integer (a fraction or exponent keeps it a double, as before).
 */
const INT64_LITERAL = new RegExp(`(?<!\\\\)("(?:${INT64_FIELDS.join('|')})"[ \\t\\r\\n]*:[ \\t\\r\\n]*)(-?\\d{16,})(?![.\\deE])`, 'g');

/**
 * Parses OTLP/JSON text like `JSON.parse`, except that int64 fields given as long number literals
 * become decimal strings (exact) instead of rounded doubles. A body without a long literal outside
 * a string (times sent as strings, the common form) costs one scan more than `JSON.parse`.
 */
export function parseOtlpJson(text: string): unknown {
  if (!LONG_LITERAL.test(text)) return JSON.parse(text);
  return JSON.parse(text.replace(INT64_LITERAL, '$1"$2"'));
}
