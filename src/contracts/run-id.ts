// A run id names files (transcripts/<run_id>.json, exported trajectories), so every id loopbench
// takes from outside — a gateway's x-loopbench-run header, a run opened by POST — is held to the
// shape of the ids it makes: short, and nothing a path or a shell reads specially.
export const RUN_ID_RULE = "letters, digits, '_', '.', '=', '-', at most 200, starting with a letter, digit or '_'";
const RUN_ID = /^[A-Za-z0-9_][\w.=-]{0,199}$/;

/** Why `id` is not a run id, or null when it is one. */
export function runIdProblem(id: string): string | null {
  if (RUN_ID.test(id)) return null;
  const shown =
    id.length > 40
      ? `${JSON.stringify(id.slice(0, 40))}… (${id.length.toLocaleString('en-US')} characters)`
      : JSON.stringify(id);
  return `${shown} is not a run id (${RUN_ID_RULE})`;
}
