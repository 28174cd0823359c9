// `bench run --otlp-endpoint`: a sweep's runs sent as spans while it runs. Each time a run's record is
// written, the step lines written since the last time are read from steps.jsonl (the runner flushes a
// run's steps before its record), the run is put together and its spans sent; the sends go one after
// another in the background and are awaited when the sweep ends. Memory holds the open runs' steps.
import fs from 'node:fs';
import type { ModelServers } from '../contracts/model-server.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import { SpanWriter } from './otlp-out.ts';
import type { SpanTarget } from './otlp-target.ts';
import { readFrom } from './json-stream.ts';
import { RunAssembler } from './run-assembler.ts';
import { toolDescriptionsOf } from './to-spans.ts';

export class LiveSpans {
  private readonly writer: SpanWriter;
  private readonly assembler: RunAssembler;
  private offset = 0;
  private carry = '';
  private sending: Promise<void> = Promise.resolve();
  private failure: Error | null = null;

  private readonly scenarios: readonly string[];
  /** Tool descriptions by scenario, then tool. */
  private readonly tools: ReadonlyMap<string, ReadonlyMap<string, string>>;

  constructor(
    private readonly stepsFile: string,
    target: SpanTarget,
    /** The sweep's scenarios, in plan order. */
    scenarios: Parameters<typeof toolDescriptionsOf>[0],
    /** Where each network provider's calls go (runner/transport.ts modelServersOf). */
    private readonly servers: ModelServers = {},
  ) {
    this.scenarios = scenarios.map((s) => s.id);
    this.tools = toolDescriptionsOf(scenarios);
    this.writer = new SpanWriter(target);
    this.assembler = new RunAssembler((run, steps) => this.send(run, steps));
  }

  /** A run's record was written: its steps are on disk. */
  recorded(run: RunRecord): void {
    this.readNewSteps();
    this.assembler.run(run);
  }

  private readNewSteps(): void {
    if (!fs.existsSync(this.stepsFile)) return;
    const bytes = readFrom(this.stepsFile, this.offset);
    this.offset += bytes.length;
    const lines = (this.carry + bytes.toString('utf8')).split('\n');
    this.carry = lines.pop()!;
    for (const line of lines) if (line.trim()) this.assembler.step(JSON.parse(line) as StepRecord);
  }

  private send(run: RunRecord, steps: StepRecord[]): void {
    // One send at a time, in order; the first failure is kept and reported at the end, the sweep goes on.
    this.sending = this.sending.then(() =>
      this.failure
        ? undefined
        : this.writer
            .write(run, steps, {
              scenarios: this.scenarios,
              tools: this.tools.get(run.scenario),
              servers: this.servers,
            })
            .catch((e: Error) => void (this.failure = e)),
    );
  }

  /** After the sweep: the last sends awaited. Returns what was sent, or throws the first failure. */
  async finish(): Promise<{ runs: number; spans: number }> {
    await this.sending;
    await this.writer.close();
    if (this.failure) throw this.failure;
    return { runs: this.writer.runs, spans: this.writer.spans };
  }
}
