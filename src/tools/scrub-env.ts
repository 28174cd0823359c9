// What a tool subprocess may see of our environment: an allow-list, not a deny-list of names that
// look secret (DATABASE_URL, GH_PAT or an OPENAI_BASE_URL with credentials match no pattern).

/** Locale, paths and the Python interpreter's own settings; nothing that configures a service. */
const ALLOWED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONIOENCODING',
  'PYTHONUTF8',
  'VIRTUAL_ENV',
  'PYENV_ROOT',
  'PYENV_VERSION',
]);

/** The allowed variables of `env` (LC_* included), plus the ones a scenario's tool declares in `env:`. */
export function scrubbedEnv(env: NodeJS.ProcessEnv, declared: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env))
    if (ALLOWED.has(k) || k.startsWith('LC_') || declared.includes(k)) out[k] = v;
  return out;
}
