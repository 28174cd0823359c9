/** A problem with what the user gave us (flags, files): printed as one line, exit code 2, no stack. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
