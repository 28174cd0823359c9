import { z } from 'zod';

/** A number, or a normal distribution drawn per use (clamped at `min`). */
export const Dist = z.union([
  z.number().nonnegative(),
  z.object({ mean: z.number().nonnegative(), sd: z.number().nonnegative(), min: z.number().nonnegative().optional() }).strict(),
]);
export type Dist = z.infer<typeof Dist>;
