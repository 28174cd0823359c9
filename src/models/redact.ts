// Secrets never reach a record, a cassette, a log or an error message: every text that leaves a
// model adapter passes through here.
const KEY_LIKE = /\b(?:sk|rk|pk)-[A-Za-z0-9_-]{8,}/g;
const BEARER = /\bBearer\s+[^\s"',]+/gi;
/** user:password@ in a URL such as --base-url https://u:p@proxy/v1 */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;
/** A query-string credential such as --base-url https://proxy/v1?api_key=… or &access_token=…: the value is masked, the name kept. */
const QUERY_CREDENTIALS =
  /([?&;][^=&#\s"']*(?:key|token|secret|passw|pwd|auth|sig|credential|session)[^=&#\s"']*=)[^&;#\s"']+/gi;

/** The text with every given secret, anything shaped like an API key, bearer tokens and URL credentials (userinfo and query) masked. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('***');
  return out
    .replace(BEARER, 'Bearer ***')
    .replace(KEY_LIKE, '***')
    .replace(URL_CREDENTIALS, '$1***@')
    .replace(QUERY_CREDENTIALS, '$1***');
}
