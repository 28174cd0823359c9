// `bench export DIR --format atif|otlp`: each run of a results directory as an ATIF trajectory, or as
// OpenTelemetry GenAI spans (an OTLP/JSON file, or sent to an OTLP/HTTP endpoint).
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../contracts/errors.ts';
import { redact } from '../models/redact.ts';
import { resultFile } from '../results/results-dir.ts';
import { addOtlpOptions, otlpTarget, serviceOf, type OtlpFlags } from './otlp-options.ts';

const FORMATS = ['atif', 'otlp'];

export function registerExport(program: Command): void {
  const cmd = program
    .command('export')
    .description(
      'write each run of a results directory as a trajectory file (ATIF), or as OpenTelemetry GenAI spans (OTLP/JSON, or sent over OTLP/HTTP), for trajectory viewers, collectors and observability tools',
    )
    .argument('<dir>', 'a results directory (holding runs.jsonl and steps.jsonl)')
    .option(
      '--format <format>',
      'output format: atif (one trajectory file per run) or otlp (spans: invoke_agent per run, chat per model call, execute_tool per action)',
      'atif',
    )
    .option(
      '-o, --out <path>',
      'atif: folder for the trajectory files (default: DIR/atif); otlp: the OTLP/JSON file, one ExportTraceServiceRequest per line and run (default: DIR/traces.otlp.jsonl, unless sent to an endpoint)',
    );
  addOtlpOptions(cmd, 'the spans (with --format otlp)').action(
    async (dirArg: string, o: { format: string; out?: string } & OtlpFlags) => {
      if (!FORMATS.includes(o.format))
        throw new UsageError(`--format: '${o.format}' is not supported (accepted: ${FORMATS.join(', ')})`);
      const dir = path.resolve(dirArg);
      if (o.format === 'atif' && (o.otlpEndpoint !== undefined || o.otlpProtocol !== undefined))
        throw new UsageError('--otlp-endpoint: only with --format otlp');
      const net = o.format === 'otlp' ? otlpTarget(o) : undefined;
      if (!fs.existsSync(resultFile(dir, 'runs')))
        throw new UsageError(`${dirArg}: not a results directory (no runs.jsonl)`);
      // Loaded here, not with the command line: the OTLP export brings the OpenTelemetry SDK and exporters.
      const { exportAtif, exportOtlp } = await import('../trajectories/export-dir.ts');
      if (o.format === 'atif') {
        const out = path.resolve(o.out ?? path.join(dir, 'atif'));
        const done = await exportAtif(dir, out);
        return void console.log(
          `exported ${done.runs} run(s) to ${out} (${done.withTranscript} with their messages from transcripts/, the others with metrics and actions only)`,
        );
      }
      const file = o.out ? path.resolve(o.out) : net ? undefined : path.join(dir, 'traces.otlp.jsonl');
      try {
        const done = await exportOtlp(dir, { ...(file ? { file } : {}), ...(net ?? { service: serviceOf() }) });
        const where = [file, net?.url ? `${redact(net.url)} (${net.protocol})` : undefined]
          .filter(Boolean)
          .join(' and ');
        console.log(
          `exported ${done.runs} run(s) as ${done.spans} span(s) to ${where}${done.incomplete ? `; ${done.incomplete} run(s) with steps missing from steps.jsonl were exported with the steps there are` : ''}`,
        );
      } catch (e) {
        // The endpoint may carry credentials (in its URL, or echoed back): said redacted, exit 1.
        throw new Error(redact((e as Error).message));
      }
    },
  );
}
