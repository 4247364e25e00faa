// Tool names: the dotted registry name (memory.write) and the name a
// provider sees (memory_write). Providers accept ^[a-zA-Z0-9_-]{1,64}$, so
// dots become underscores; a sanitized name that equals one of a provider's
// own built-in tools gets the prefix reg_, so the model can never mistake a
// device tool for the provider's (web.search -> reg_web_search). Names are
// reversed by lookup in the registry, not by rule: tenant.set_role and a
// hypothetical tenant_set.role would both read tenant_set_role, and the
// registry refuses the second at registration.


import { replaceEvery } from '../../util/replace.ts';// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const DOTS = /\./;
const NOT_PROVIDER_SAFE = /[^a-zA-Z0-9_-]/;

/** A registry name: lowercase words of [a-z0-9_-] joined by dots. */
export const TOOL_NAME_RE = /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/;

/** What providers accept as a function name. */
export const PROVIDER_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

export const BUILTIN_PREFIX = 'reg_';

/**
 * Names of tools the hosted providers run themselves (server-side tools and
 * connectors of the responses, messages and conversations APIs, and the
 * usual client-tool names they special-case). A device tool must never be
 * sent under one of these names. Compared without case. Extend it when a
 * provider adds one.
 */
export const PROVIDER_BUILTIN_NAMES: readonly string[] = [
  'web_search', 'web_search_preview', 'web_fetch', 'google_search', 'file_search', 'code_interpreter',
  'code_execution', 'computer', 'computer_use', 'computer_use_preview', 'bash', 'text_editor',
  'str_replace_editor', 'str_replace_based_edit_tool', 'memory', 'image_generation', 'local_shell', 'shell',
  'apply_patch', 'mcp', 'tool_search', 'document_library', 'orch_turn',
];

function isBuiltin(name: string): boolean {
  const n = name.toLowerCase();
  return PROVIDER_BUILTIN_NAMES.some((b) => b === n);
}

/** The provider-facing name of a registry name (not yet checked for collisions among tools). */
export function sanitizeToolName(name: string): string {
  const plain = replaceEvery(replaceEvery(name, DOTS, '_'), NOT_PROVIDER_SAFE, '_');
  return isBuiltin(plain) ? BUILTIN_PREFIX + plain : plain;
}
