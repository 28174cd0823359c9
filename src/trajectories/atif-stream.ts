// An ATIF file read in two streaming passes, so a trajectory of a million steps is never held whole:
// the first scans the file and reads every field but the steps (session, agent, extra, final_metrics:
// a loopbench export puts its run record after the steps), noting where each step's bytes are; the
// second parses the steps from there, one at a time, without scanning the file again. A file holds
// one trajectory, or an array of them.
import { z } from 'zod';
import { zodAccepts } from '../contracts/zod-fast.ts';
import { formatZodError } from '../scenario/yaml-file.ts';
import { AtifHeader, AtifStep } from './atif-schema.ts';
import {
  ByteRanges,
  parseRanges,
  streamJsonFile,
  type JsonPath,
  type JsonVisitor,
  type StreamOptions,
} from './json-stream.ts';

/** A trajectory's header, checked, and the model its first agent step names (for a header that names none). */
export interface AtifItem {
  header: AtifHeader;
  firstStepModel: string | null;
}

/** A trajectory of a file: its header, and where its steps are for the second pass. */
export interface AtifFileItem extends AtifItem {
  /** `file`, or `file[2]` for the third trajectory of an array. */
  label: string;
  /** The path of its steps array in the file, for messages: `steps` or `[2].steps`. */
  stepsPath: JsonPath;
  steps: ByteRanges;
}

/** The file (or one of its trajectories) is not ATIF: the message is `file: field: why`, the file is skipped. */
export class AtifFileError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** Where the trajectories of a file are: the top value, or each element of a top array. */
class Items {
  topIsArray = false;
  /** The file's top value: walked, and whether it is an array of trajectories noted. */
  top(kind: 'object' | 'array'): 'walk' {
    this.topIsArray = kind === 'array';
    return 'walk';
  }
  /** The item a path is in, and the rest of the path below it; null above any item. */
  split(path: JsonPath): { item: number; rest: JsonPath } | null {
    if (!this.topIsArray) return { item: 0, rest: path };
    return path.length === 0 ? null : { item: path[0] as number, rest: path.slice(1) };
  }
  label(file: string, item: number): string {
    return this.topIsArray ? `${file}[${item}]` : file;
  }
  /** The path of an item's steps array: `split`'s inverse. */
  stepsPath(item: number): JsonPath {
    return this.topIsArray ? [item, 'steps'] : ['steps'];
  }
}

/** An agent field naming its model: the model a run is priced and named by, whatever its steps name (modelOf). */
const namesModel = (agent: unknown) =>
  isObject(agent) && typeof agent.model_name === 'string' && agent.model_name !== '';

/** Pass 1: each trajectory's header, validated, and where its steps are. Throws AtifFileError (or JsonStreamError: not JSON). */
export function readAtifHeaders(file: string, o: StreamOptions = {}): AtifFileItem[] {
  const items = new Items();
  const out: AtifFileItem[] = [];
  let fields: Record<string, unknown> = {};
  let firstStepModel: string | null = null;
  /** Where each step is; its length is the steps counted so far. */
  let ranges = new ByteRanges();
  /** The member being read or skipped is a step: its bytes are noted when it ends. */
  let inStep = false;
  const visitor: JsonVisitor = {
    visit(path, kind) {
      if (path.length === 0) return items.top(kind);
      const at = items.split(path)!;
      if (at.rest.length === 0) {
        if (kind !== 'object')
          throw new AtifFileError(`${items.label(file, at.item)}: expected an ATIF trajectory (a JSON object)`);
        return 'walk';
      }
      if (at.rest.length === 1 && at.rest[0] === 'steps' && kind === 'array') return 'walk';
      // A step is parsed here only while a model name is still wanted from one: none yet, and the agent (when
      // it comes before the steps) names none.
      if (at.rest.length === 2 && at.rest[0] === 'steps') {
        inStep = true;
        return firstStepModel === null && !namesModel(fields.agent) ? 'read' : 'skip';
      }
      return 'read';
    },
    value(path, value) {
      const at = items.split(path);
      if (!at || at.rest.length === 0)
        throw new AtifFileError(`${file}: expected an ATIF trajectory (a JSON object)${at ? '' : ' in the array'}`);
      if (at.rest.length === 1) fields[at.rest[0] as string] = value;
      else {
        inStep = true;
        if (isObject(value) && value.source === 'agent' && typeof value.model_name === 'string' && value.model_name)
          firstStepModel ??= value.model_name;
      }
    },
    ended(start, end) {
      if (inStep) ranges.push(start, end);
      inStep = false;
    },
    close(path) {
      const at = items.split(path);
      if (!at || at.rest.length > 0) {
        if (at?.rest.length === 1 && at.rest[0] === 'steps') fields.steps = ranges.length;
        return;
      }
      const label = items.label(file, at.item);
      if (fields.steps === undefined) throw new AtifFileError(`${label}: steps: missing (expected array)`);
      if (typeof fields.steps !== 'number') throw new AtifFileError(`${label}: steps: Invalid input: expected array`);
      if (fields.steps === 0) throw new AtifFileError(`${label}: steps: Too small: expected array to have >=1 items`);
      const { steps: _count, ...rest } = fields;
      const parsed = AtifHeader.safeParse(rest);
      if (!parsed.success) throw new AtifFileError(formatZodError(label, parsed.error));
      out.push({ header: parsed.data, firstStepModel, label, stepsPath: items.stepsPath(at.item), steps: ranges });
      fields = {};
      firstStepModel = null;
      ranges = new ByteRanges();
    },
  };
  streamJsonFile(file, visitor, o);
  if (items.topIsArray && out.length === 0) throw new AtifFileError(`${file}: an empty array, no trajectory`);
  return out;
}

export interface StepSink {
  step(item: number, step: AtifStep): void;
  /** The item's steps are all in. */
  end(item: number): void;
}

/** A step as writers write it is taken as it is; zod parses (and names what is wrong with) any other. */
const stepAccepted = zodAccepts(AtifStep);

/** Pass 2: every step of every trajectory, validated, in file order. Throws AtifFileError on a bad step (or JsonStreamError). */
export function readAtifSteps(
  file: string,
  items: readonly AtifFileItem[],
  sink: StepSink,
  o: Pick<StreamOptions, 'maxMemberBytes'> = {},
): void {
  items.forEach((item, n) => {
    parseRanges(
      file,
      item.steps,
      (i, value) => {
        if (stepAccepted(value)) return sink.step(n, value);
        const parsed = AtifStep.safeParse(value);
        if (!parsed.success) {
          const issues = parsed.error.issues.map((x) => ({ ...x, path: ['steps', i, ...x.path] }));
          throw new AtifFileError(formatZodError(item.label, new z.ZodError(issues)));
        }
        sink.step(n, parsed.data);
      },
      (i) => [...item.stepsPath, i],
      o,
    );
    sink.end(n);
  });
}
