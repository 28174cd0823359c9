/** A request's route: its URL's path without the query and trailing slashes (`/v1/responses/` → `/v1/responses`). */
export const routeOf = (url: string | undefined): string =>
  new URL(url ?? '/', 'http://x').pathname.replace(/\/+$/, '');
