import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../contracts/errors.ts';
import { scenariosDir } from '../contracts/paths.ts';
import { loadYamlFile } from './yaml-file.ts';
import { ScenarioSchema, type Scenario } from './schema.ts';

export function loadScenarioFile(file: string): Scenario {
  const s = loadYamlFile(file, ScenarioSchema);
  const expected = path.basename(file).replace(/\.ya?ml$/, '');
  if (s.id !== expected) throw new UsageError(`${file}: id: '${s.id}' must match the file name '${expected}'`);
  return { ...s, file };
}

export function listScenarioFiles(dir = scenariosDir()): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

export function loadAllScenarios(dir = scenariosDir()): Scenario[] {
  return listScenarioFiles(dir).map(loadScenarioFile);
}

/** A shipped scenario id, or a path to a scenario file. */
export function resolveScenario(ref: string, dir = scenariosDir()): Scenario {
  if (/[/\\]|\.ya?ml$/.test(ref)) return loadScenarioFile(ref);
  const file = listScenarioFiles(dir).find((f) => path.basename(f).replace(/\.ya?ml$/, '') === ref);
  if (!file) {
    const known = listScenarioFiles(dir).map((f) => path.basename(f).replace(/\.ya?ml$/, ''));
    throw new UsageError(`unknown scenario '${ref}' (known: ${known.join(', ')}; or give a path to a .yaml file)`);
  }
  return loadScenarioFile(file);
}

/** Resolve a list of refs; the same scenario twice is an error (it would run twice under one id). */
export function resolveScenarios(refs: string[], dir = scenariosDir()): Scenario[] {
  const out = refs.map((r) => resolveScenario(r, dir));
  const ids = new Set<string>();
  for (const s of out) {
    if (ids.has(s.id)) throw new UsageError(`scenario '${s.id}' is named twice`);
    ids.add(s.id);
  }
  return out;
}
