// The resources /mcp serves (MCP "Resources": resources/list,
// resources/read, resources/templates/list). Each provider owns one URI
// scheme (docs://, artifact://) and is registered by installMcp; the
// subsystem that owns the data writes the provider (src/docs/resources.ts,
// src/files/resources.ts) and applies its own visibility rules with the
// caller it is given, as its tools do.
//
// Lists are paged PAGE_SIZE at a time over every provider's list in
// registration order; a cursor is the offset of the next page, opaque to
// clients. A list that changes between pages may show an entry twice or
// skip one, which MCP allows (cursors promise no snapshot).

import { isPlainObject } from '../util/json.ts';
import type { ToolCaller } from '../core/tools/types.ts';
import { ResourceError, type ResourceInfo, type ResourceProvider, type ResourceRead, type ResourceTemplateInfo } from '../contracts/index.ts';

export { ResourceError, type ResourceContents, type ResourceInfo, type ResourceProvider, type ResourceRead, type ResourceTemplateInfo } from '../contracts/index.ts';

export const PAGE_SIZE = 50;

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//;
const CURSOR = /^o([0-9]{1,7})$/;

export type Page<T> = { ok: true; items: T[]; nextCursor?: string } | { ok: false; error: string };

/** One page of a list from a cursor this server gave out (or none). */
export function paginate<T>(all: T[], cursor: unknown, size = PAGE_SIZE): Page<T> {
  let from = 0;
  if (cursor !== undefined) {
    const m = typeof cursor === 'string' ? CURSOR.exec(cursor) : null;
    if (!m) return { ok: false, error: 'Invalid cursor: it is not one this server gave out.' };
    from = Number(m[1]);
  }
  const items = all.slice(from, from + size);
  return from + size < all.length ? { ok: true, items, nextCursor: `o${from + size}` } : { ok: true, items };
}

/** params.cursor of a list request (undefined when absent); null when params is not an object. */
export function cursorOf(params: unknown): { cursor: unknown } | null {
  if (params === undefined) return { cursor: undefined };
  if (!isPlainObject(params)) return null;
  return { cursor: params.cursor };
}

export class ResourceRegistry {
  private readonly providers: ResourceProvider[] = [];

  constructor(private readonly onError: (message: string) => void = () => {}) {}

  register(p: ResourceProvider): void {
    if (this.providers.some((x) => x.scheme === p.scheme)) throw new Error(`resources: scheme ${p.scheme} registered twice`);
    this.providers.push(p);
  }

  get empty(): boolean {
    return this.providers.length === 0;
  }

  /** Every resource this caller may read, provider by provider. A provider that fails is left out (and logged). */
  list(caller: ToolCaller): ResourceInfo[] {
    const out: ResourceInfo[] = [];
    for (const p of this.providers) {
      try {
        out.push(...p.list(caller));
      } catch (e) {
        this.onError(`resources: ${p.scheme} list failed: ${String(e)}`);
      }
    }
    return out;
  }

  templates(): ResourceTemplateInfo[] {
    return this.providers.flatMap((p) => p.templates());
  }

  /** Throws ResourceError (no such resource, or it cannot be read now). */
  read(uri: string, caller: ToolCaller): ResourceRead {
    const scheme = SCHEME.exec(uri)?.[1];
    const p = this.providers.find((x) => x.scheme === scheme);
    if (!p) throw new ResourceError(`No resource ${uri.slice(0, 120)}: this device serves ${this.providers.map((x) => `${x.scheme}://`).join(', ')} resources.`);
    return p.read(uri, caller);
  }
}
