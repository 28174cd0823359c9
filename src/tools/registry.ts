import type { ToolDecl } from '../scenario/schema.ts';
import type { ToolSpec } from '../contracts/chat.ts';
import { runPythonTool } from './run-python.ts';
import { scriptedTool } from '../sim/scripted.ts';
import type { Tool } from '../contracts/tool.ts';

/** The tools a scenario declares, by name, and their specs as sent to the model (built once). */
export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();
  readonly specs: ToolSpec[];

  constructor(tools: Tool[]) {
    for (const t of tools) this.byName.set(t.spec.function.name, t);
    this.specs = tools.map((t) => t.spec);
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  static fromDecls(decls: ToolDecl[]): ToolRegistry {
    return new ToolRegistry(
      decls.map((d) =>
        d.kind === 'python'
          ? runPythonTool({
              timeoutS: d.timeout_s,
              maxOutputChars: d.max_output_chars,
              maxMemoryMb: d.max_memory_mb,
              virtualMs: d.virtual_ms,
              ...(d.env ? { env: d.env } : {}),
            })
          : scriptedTool({
              spec: {
                type: 'function',
                function: { name: d.name, description: d.description, parameters: d.parameters },
              },
              resultTokens: d.result_tokens,
              header: d.header,
              progress: d.progress,
              virtualMs: d.virtual_ms,
            }),
      ),
    );
  }
}
