// One colour per configuration in every chart of a report. Charts are panelled by scenario, so a
// configuration is named there by its settings alone (`steps=30`, the config id without its
// scenario): steps=30 is the same colour in every panel and every chart, and every chart that colours
// by configuration uses this one scale — the same domain, in natural order, and the same range.
import { naturalOrder } from '../stats/aggregate.ts';

/** Tableau 20, the strong half first: ten well-separated colours before the light ones are needed. */
const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
  '#a0cbe8',
  '#ffbe7d',
  '#ff9d9a',
  '#86bcb6',
  '#8cd17d',
  '#f1ce63',
  '#d4a6c8',
  '#fabfd2',
  '#d7b5a6',
  '#79706e',
];

/** `steps=30` for `seed-calibrated steps=30`: what a configuration is called inside its scenario's panel. */
export function configLabel(configId: string, scenario: string): string {
  return configId.startsWith(`${scenario} `) ? configId.slice(scenario.length + 1) : configId;
}

export interface ColourScale {
  domain: string[];
  range: string[];
  /** Config id → its label in the domain. */
  labels: ReadonlyMap<string, string>;
}

/** The shared scale over every configuration label of the sweep, in natural order (steps=5 before steps=40). */
export function configColours(configs: ReadonlyArray<{ config_id: string; scenario: string }>): ColourScale {
  const labels = new Map(configs.map((c) => [c.config_id, configLabel(c.config_id, c.scenario)]));
  const domain = [...new Set(labels.values())].sort(naturalOrder);
  return { domain, range: domain.map((_, i) => PALETTE[i % PALETTE.length]!), labels };
}

/**
 * A colour encoding on `field` with the shared scale; the legend lists only the labels this chart
 * draws (a domain entry with no line behind it would be a legend entry for nothing), in scale order.
 */
export function colourBy(
  field: string,
  scale: ColourScale,
  drawn: Iterable<string>,
  legend: Record<string, unknown> = {},
) {
  const shown = new Set(drawn);
  return {
    field,
    type: 'nominal' as const,
    title: null,
    scale: { domain: scale.domain, range: scale.range },
    legend: { values: scale.domain.filter((d) => shown.has(d)), ...legend },
  };
}
