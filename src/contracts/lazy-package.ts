// A package loaded the first time a command uses it, not when `bench` starts: every command's modules
// are imported at start-up, and most commands never draw a progress bar, read YAML or open a
// WebSocket (ws ~0.1 s of CPU, yaml ~0.07 s). createRequire loads it synchronously at that point, so
// nothing about when the caller runs changes; in Node, import and require give the same build.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The package `name`, loaded at the first call (require's cache keeps it for the next). */
export const lazyPackage =
  <T>(name: string): (() => T) =>
  () =>
    require(name) as T;
