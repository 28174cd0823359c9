// The layers of src/ (README "Layout"): each folder imports only the folders listed for it, all of
// them below it, so the folder graph is a DAG. Type-only imports count (tsPreCompilationDeps).
// `npm run lint:deps` checks it; .ci/run fails on a break.

/** Folder → the folders of ours it may import. Order is bottom to top. */
const LAYERS = {
  // Pure mathematics (special functions, distributions, quantiles, seeded randomness): numbers in, numbers
  // out, nothing of ours imported, so every layer that computes a statistic can share the one copy.
  stats: [],
  contracts: [],
  scenario: ['contracts'],
  results: ['contracts', 'scenario'],
  meter: ['contracts', 'scenario'],
  // Each wire protocol once (Chat Completions, Responses, Messages): bench serve, the gateway and the OpenAI provider read and spell through it.
  wire: ['contracts', 'scenario'],
  brakes: ['contracts'],
  sim: ['stats', 'contracts', 'scenario', 'meter'],
  tools: ['contracts', 'scenario', 'sim'],
  models: ['contracts', 'scenario', 'results', 'meter', 'wire', 'sim'],
  agents: ['contracts', 'scenario', 'meter', 'brakes', 'tools'],
  report: ['stats', 'contracts', 'results', 'meter'],
  // What-if limits replay the brakes (pure checks) over recorded steps; reports read what it derives.
  whatif: ['stats', 'contracts', 'results', 'meter', 'brakes', 'report'],
  trajectories: ['contracts', 'scenario', 'results', 'meter'],
  runner: ['contracts', 'scenario', 'results', 'meter', 'brakes', 'sim', 'tools', 'models', 'agents', 'report'],
  gate: ['stats', 'contracts', 'scenario', 'results', 'models', 'report', 'runner'],
  serve: ['contracts', 'scenario', 'results', 'meter', 'wire', 'sim', 'models', 'runner'],
  // The metering gateway and `bench run --agent-cmd`: an external agent's calls, through the same brakes and records.
  // It does not import serve/ (bench serve's simulated server is handed to it by the command line): see gateway-not-serve.
  gateway: [
    'contracts',
    'scenario',
    'results',
    'meter',
    'wire',
    'brakes',
    'sim',
    'tools',
    'models',
    'agents',
    'report',
    'runner',
  ],
  perf: [
    'stats',
    'contracts',
    'scenario',
    'results',
    'meter',
    'brakes',
    'tools',
    'report',
    'runner',
    'serve',
    'gateway',
  ],
};

/** The command line sits on top of every other layer. */
LAYERS.cli = Object.keys(LAYERS);

/**
 * The rooms of src/report/ (README "Layout"), each importing only the rooms listed for it; the files at
 * report/'s top (build.ts, loop-reports.ts) assemble them and are imported by no room.
 */
const REPORT_ROOMS = {
  data: [],
  stats: ['data'],
  format: ['stats'],
  findings: ['data', 'stats', 'format'],
  tables: ['data', 'stats', 'format', 'findings'],
  charts: ['data', 'stats', 'format'],
  render: ['data', 'stats', 'format', 'findings', 'tables', 'charts'],
  diff: ['data', 'stats', 'format'],
};

const roomRules = Object.entries(REPORT_ROOMS).map(([room, allowed]) => ({
  name: `report-room-${room}`,
  comment: `src/report/${room}/ may import only ${allowed.length ? allowed.map((r) => `report/${r}/`).join(', ') : 'no other room'} of the report's rooms (and itself)`,
  severity: 'error',
  from: { path: `^src/report/${room}/` },
  to: { path: '^src/report/', pathNot: `^src/report/(${[room, ...allowed].join('|')})/` },
}));

const layerRules = Object.entries(LAYERS).map(([folder, allowed]) => ({
  name: `layer-${folder}`,
  comment: `src/${folder}/ may import only ${allowed.length ? allowed.map((f) => `src/${f}/`).join(', ') : 'nothing of ours'} (and itself)`,
  severity: 'error',
  from: { path: `^src/${folder}/` },
  to: { path: '^src/', pathNot: `^src/(${[folder, ...allowed].join('|')})/` },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    ...roomRules,
    {
      name: 'report-rooms-only',
      comment: `every folder of src/report/ is a room listed in .dependency-cruiser.cjs (${Object.keys(REPORT_ROOMS).join(', ')})`,
      severity: 'error',
      from: { path: '^src/report/[^/]+/', pathNot: `^src/report/(${Object.keys(REPORT_ROOMS).join('|')})/` },
      to: {},
    },
    {
      name: 'gateway-not-serve',
      comment:
        'the gateway reads and spells protocols through src/wire/, and is handed the simulated server it needs: it imports nothing of src/serve/',
      severity: 'error',
      from: { path: '^src/gateway/' },
      to: { path: '^src/serve/' },
    },
    {
      name: 'wire-below-runner',
      comment: 'protocol code (src/wire/) sits below the runner: it imports no runner, serve, gateway or agent code',
      severity: 'error',
      from: { path: '^src/wire/' },
      to: { path: '^src/(runner|serve|gateway|agents|models|perf|gate|cli)/' },
    },
    {
      name: 'no-file-cycles',
      comment: 'no file imports one that imports it back, directly or around a circle: shared types go below both',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-cli-imports',
      comment: 'the command line is the top: nothing imports it',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'reports-read-results-only',
      comment: 'reports and the results store read records, never the code that made them',
      severity: 'error',
      from: { path: '^src/(report|results)/' },
      to: { path: '^src/(agents|models|brakes|tools|sim|runner)/' },
    },
    {
      name: 'no-folder-outside-layers',
      comment: 'every file of src/ lives in a layer folder listed in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(${Object.keys(LAYERS).join('|')})/` },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
  },
};
