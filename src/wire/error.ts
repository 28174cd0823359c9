// A refusal or failure before a protocol spells it: bench serve's and the gateway's alike. Each
// adapter spells it in its own error shape (OpenAI's `{error: …}`, Anthropic's `{type: 'error', …}`).

export interface WireError {
  status: number;
  message: string;
  /** e.g. invalid_request_error, loopbench_brake, upstream_error. */
  type: string;
  param?: string | null;
  code?: string | null;
}

export function wireError(
  status: number,
  message: string,
  type = 'invalid_request_error',
  param: string | null = null,
  code: string | null = null,
): WireError {
  return { status, message, type, param, code };
}

/** An error in OpenAI's shape (Chat Completions and the Responses API alike). */
export const openaiError = (e: WireError) => ({
  error: { message: e.message, type: e.type, param: e.param ?? null, code: e.code ?? null },
});
