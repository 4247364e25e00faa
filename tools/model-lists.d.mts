// Types for tools/model-lists.mjs.

/** The models answer for a host and path, in that provider's shape. */
export function modelListBody(host: string, path: string): Record<string, unknown>;
