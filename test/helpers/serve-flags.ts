// bench serve's parsed flags as the tests that start a gateway in process hand them to gatewayOptions:
// a free loopback port, no injected latency or faults, no prompt cache; each test adds its own
// (upstream, out, brakes).
export const SERVE_FLAGS = {
  port: '0',
  host: '127.0.0.1',
  latency: '0',
  errorRate: '0',
  faults: '',
  retryAfter: '1',
  promptCache: 'off',
} as const;
