// Configurations that draw the very same line (a lower step limit follows a higher one's curve
// until it stops; limits no run reaches change nothing) would hide one another. Each stays visible
// and named: a line another covers is drawn over it, dashed, and each covered line's dashes are
// laid so that every one of them shows its own stretch of each period. The line at rank i of n
// draws dashes [(n−i)·D, i·D] from the same start: rank 0 is solid, and drawn bottom to top each
// rank keeps the stretch [(n−i−1)·D, (n−i)·D) of every period that no line above it paints.
import { naturalOrder } from '../stats/aggregate.ts';

/** One stretch of a dash period, in pixels. */
export const DASH = 4;
export const SOLID = [1, 0];

export interface LineDashes {
  /** Every label of the chart, bottom (solid) to top: the order the lines are drawn in. */
  order: string[];
  /** Label → its dash array. */
  dash: Map<string, number[]>;
}

/**
 * `lines`: each line's label and the labels of the lines that cover it (in any panel). Lines covered
 * nowhere are solid; the covered ones are ranked by natural order from the highest (a higher limit's
 * line covers a lower one's), one rank each, so two covered lines never share a dash.
 */
export function lineDashes(labels: Iterable<string>, covered: ReadonlySet<string>): LineDashes {
  const all = [...new Set(labels)].sort(naturalOrder).reverse();
  const ranked = all.filter((l) => covered.has(l));
  const n = ranked.length + 1;
  const dash = new Map(all.map((l) => [l, SOLID]));
  ranked.forEach((l, k) => dash.set(l, [(n - (k + 1)) * DASH, (k + 1) * DASH]));
  return { order: [...all.filter((l) => !covered.has(l)), ...ranked], dash };
}
