// `bench export DIR --format atif`: every run of a results directory (a sweep, an agent-cmd run, an
// import) as one ATIF trajectory file, named by its run id.
import fs from 'node:fs';
import path from 'node:path';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import { writeJsonAtomic } from '../results/atomic.ts';
import { readJsonlLines } from '../results/jsonl.ts';
import { readMeta, type Meta } from '../results/meta.ts';
import { scenarioDigest } from '../results/digest.ts';
import { loadScenarioFile } from '../scenario/loader.ts';
import { FILES, resultFile } from '../results/results-dir.ts';
import { toAtif, type TranscriptView } from './to-atif.ts';
import { SpanWriter } from './otlp-out.ts';
import type { SpanTarget } from './otlp-target.ts';
import { toolDescriptionsOf } from './to-spans.ts';
import { RunAssembler } from './run-assembler.ts';

/** A run id as a file name: the ids loopbench makes are safe already; imported ones may not be. */
const fileName = (runId: string) => `${runId.replace(/[^A-Za-z0-9._=-]/g, '_')}.json`;

function transcriptOf(dir: string, runId: string): TranscriptView | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, FILES.transcripts, `${runId}.json`), 'utf8')) as TranscriptView;
  } catch {
    return null;
  }
}

/** Writes one trajectory per run into `out`; returns how many runs, and how many had a transcript. */
export async function exportAtif(dir: string, out: string): Promise<{ runs: number; withTranscript: number }> {
  // Step records are grouped by run first: steps.jsonl interleaves the runs of a concurrent sweep.
  const steps = new Map<string, StepRecord[]>();
  for await (const line of readJsonlLines(resultFile(dir, 'steps'))) {
    if (!line.ok) continue;
    const s = line.value as StepRecord;
    let list = steps.get(s.run_id);
    if (!list) steps.set(s.run_id, (list = []));
    list.push(s);
  }
  const scenarios = readMeta(dir)?.scenarios ?? [];
  fs.mkdirSync(out, { recursive: true });
  let runs = 0;
  let withTranscript = 0;
  for await (const line of readJsonlLines(resultFile(dir, 'runs'))) {
    if (!line.ok) continue;
    const run = line.value as RunRecord;
    const own = (steps.get(run.run_id) ?? []).sort((a, b) => a.call - b.call);
    const transcript = transcriptOf(dir, run.run_id);
    if (transcript) withTranscript++;
    writeJsonAtomic(path.join(out, fileName(run.run_id)), toAtif(run, own, transcript, scenarios));
    runs++;
  }
  return { runs, withTranscript };
}

/** Each scenario's tool descriptions, from its file when the file still holds what ran (the digest meta.json kept). */
function toolDescriptions(meta: Meta | null): Map<string, Map<string, string>> {
  const same = (meta?.scenario_files ?? []).flatMap((file) => {
    try {
      const s = loadScenarioFile(file);
      return meta?.scenario_digests?.[s.id] === scenarioDigest(s) ? [s] : [];
    } catch {
      // A scenario file moved or no longer valid: its tools go without descriptions.
      return [];
    }
  });
  return toolDescriptionsOf(same);
}

/**
 * Every run of a results directory as OTLP spans, to a file or an endpoint. The run records are read
 * first (one per run), then steps.jsonl once, each run handed on as soon as its steps are in, so memory
 * holds the runs whose steps are still interleaved with others', not the whole directory.
 */
export async function exportOtlp(
  dir: string,
  target: SpanTarget,
): Promise<{ runs: number; spans: number; incomplete: number }> {
  const writer = new SpanWriter(target);
  const ready: Array<[RunRecord, StepRecord[]]> = [];
  const assembler = new RunAssembler((run, steps) => ready.push([run, steps]));
  const meta = readMeta(dir);
  const scenarios = meta?.scenarios ?? [];
  const tools = toolDescriptions(meta);
  const drain = async () => {
    for (let next = ready.shift(); next; next = ready.shift())
      await writer.write(next[0], next[1], {
        scenarios,
        tools: tools.get(next[0].scenario),
        servers: meta?.model_servers,
      });
  };
  try {
    for await (const line of readJsonlLines(resultFile(dir, 'runs')))
      if (line.ok) assembler.run(line.value as RunRecord);
    await drain();
    for await (const line of readJsonlLines(resultFile(dir, 'steps'))) {
      if (!line.ok) continue;
      assembler.step(line.value as StepRecord);
      await drain();
    }
    const incomplete = assembler.flush();
    await drain();
    return { runs: writer.runs, spans: writer.spans, incomplete };
  } finally {
    await writer.close();
  }
}
