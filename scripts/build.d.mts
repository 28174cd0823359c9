/** Bundles src/ into dist/ (see build.mjs). */
export function buildBench(options?: { clean?: boolean }): Promise<void>;
