/** A problem with what the user gave us (flags, files): printed as one line, exit code 2, no stack. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A problem in a file the user gave (scenario, profile, pricing, budgets, meta.json, cassette): a
 * UsageError that also carries the file and the field (`limits.steps`, `scenarios[0].system_file`;
 * null when the whole file is at fault), so callers and tests can tell where without parsing text.
 */
export class ConfigError extends UsageError {
  constructor(
    readonly file: string,
    readonly field: string | null,
    /** What is wrong, without the file and field. */
    readonly problem: string,
  ) {
    super(`${file}: ${field ? `${field}: ` : ''}${problem}`);
    this.name = 'ConfigError';
  }
}
