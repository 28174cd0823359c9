// `error.type` as the OpenTelemetry conventions want it: a short, low-cardinality code for what failed
// (an HTTP status such as `500`, `timeout`, an error class), never the whole message; the message goes
// in the span status. Pure.

/** The conventions' value when no better code is known. */
export const OTHER_ERROR = '_OTHER';

/** A short code for an error message: its HTTP status, `timeout`, or its error class. */
export function errorTypeOf(message: string): string {
  const status = /\b(?:status|HTTP|code)?\s*\(?([45]\d\d)\b/i.exec(message);
  if (status) return status[1]!;
  if (/time(?:d)?[ -]?out|deadline/i.test(message)) return 'timeout';
  const cls = /\b([A-Z][A-Za-z]*(?:Error|Exception))\b/.exec(message);
  if (cls) return cls[1]!;
  const code = /\b(E[A-Z]{3,}|ERR_[A-Z_]+)\b/.exec(message);
  return code ? code[1]! : OTHER_ERROR;
}
