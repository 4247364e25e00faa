// The tool registry: one entry per tool, registered by the subsystem that
// owns it (ctx.tools.register(spec)), read alike by the live turn, the
// provider layer and POST /mcp. It owns the rules every tool shares, so no
// handler repeats them:
//
//   list(caller)        what this caller is offered: the tool runs where the
//                       caller is (turn or /mcp), the caller may use it
//                       (admin-only tools are never shown to others), it is
//                       allowed in this kind of turn (scheduled, unattended),
//                       and it is available now. Sorted by name.
//   call(name, args, caller)
//                       the same checks again at dispatch (a model may call a
//                       tool it was not offered), then the arguments against
//                       the tool's schema, then the handler. Never throws:
//                       every failure, a throwing handler included, is a
//                       ToolResult with success false (spec, Other failure
//                       rules 1).
//   providerName(name), restoreName(providerName)
//                       the provider-facing names, reversed by lookup.
//   panel()             the tool panel (GET /api/tools).
//
// error_type values set here: unknown-tool, not-here, forbidden, unattended,
// unavailable, bad-arguments, internal. Handlers add their own.

import { errorMessage, isPlainObject, stringify } from '../../util/json.ts';
import { PROVIDER_NAME_RE, TOOL_NAME_RE, sanitizeToolName } from './names.ts';
import { fail, type ToolCaller, type ToolInfo, type ToolPanelEntry, type ToolResult, type ToolSpec } from './types.ts';
import { checkSchema, validate } from './validate.ts';

/** Why a caller may not use a tool, as the result that says so; null = may use it. */
type Refusal = ToolResult | null;

function isToolResult(r: unknown): r is ToolResult {
  return (
    isPlainObject(r) &&
    typeof r.success === 'boolean' &&
    typeof r.output === 'string' &&
    (r.error === null || typeof r.error === 'string') &&
    (r.error_type === null || typeof r.error_type === 'string')
  );
}

export class ToolRegistry {
  private tools = new Map<string, ToolSpec>();
  private byProviderName = new Map<string, string>();
  private providerNames = new Map<string, string>();

  constructor(private readonly onError: (message: string) => void = () => {}) {}

  /**
   * Adds a tool. Throws (a programming error, found at boot) on a malformed
   * or duplicate name, a provider name that collides with another tool's, or
   * a schema outside the validator's subset.
   */
  register(spec: ToolSpec): void {
    const { name } = spec;
    if (!TOOL_NAME_RE.test(name)) throw new Error(`tool name ${stringify(name)} is not lowercase dotted words`);
    if (this.tools.has(name)) throw new Error(`tool ${name} registered twice`);
    const providerName = sanitizeToolName(name);
    if (!PROVIDER_NAME_RE.test(providerName)) throw new Error(`tool ${name}: provider name ${providerName} is longer than 64 characters`);
    const clash = this.byProviderName.get(providerName.toLowerCase());
    if (clash !== undefined) throw new Error(`tool ${name}: provider name ${providerName} is already taken by ${clash}`);
    const problems = checkSchema(spec.schema);
    if (problems.length) throw new Error(`tool ${name}: schema: ${problems.join('; ')}`);
    if (typeof spec.handler !== 'function') throw new Error(`tool ${name} has no handler`);
    this.tools.set(name, spec);
    this.byProviderName.set(providerName.toLowerCase(), name);
    this.providerNames.set(name, providerName);
  }

  get(name: string): ToolSpec | undefined {
    return this.tools.get(name);
  }

  /** Every registered tool, sorted by name. */
  all(): ToolSpec[] {
    return [...this.tools.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The provider-facing name of a registered tool (undefined if not registered). */
  providerName(name: string): string | undefined {
    return this.providerNames.get(name);
  }

  /**
   * The registry name a provider's tool call names: the sanitized name
   * (compared without case, as some providers fold it) or the dotted name
   * itself; null when no tool has it.
   */
  restoreName(called: string): string | null {
    if (this.tools.has(called)) return called;
    return this.byProviderName.get(called.toLowerCase()) ?? null;
  }

  /** The tools this caller is offered now, sorted by name. */
  list(caller: ToolCaller): ToolInfo[] {
    return this.all()
      .filter((t) => this.refusal(t, caller) === null)
      .map((t) => ({ name: t.name, providerName: this.providerNames.get(t.name)!, description: t.description, schema: t.schema, access: t.access }));
  }

  /** Runs one tool call for a caller. Never throws. */
  async call(calledName: string, args: unknown, caller: ToolCaller): Promise<ToolResult> {
    const name = typeof calledName === 'string' ? this.restoreName(calledName) : null;
    const spec = name === null ? undefined : this.tools.get(name);
    if (!spec) return fail('unknown-tool', `No tool is named ${stringify(String(calledName)).slice(0, 80)}.`);
    const refused = this.refusal(spec, caller);
    if (refused) return refused;
    const input = args === undefined || args === null ? {} : args;
    if (!isPlainObject(input)) return fail('bad-arguments', `${spec.name}: the arguments must be a JSON object.`);
    const errors = validate(spec.schema, input);
    if (errors.length) return fail('bad-arguments', `${spec.name}: ${errors.join('; ')}.`);
    try {
      const result: unknown = await spec.handler(input, caller);
      if (isToolResult(result)) return result;
      this.onError(`tool ${spec.name} returned a malformed result`);
      return fail('internal', `${spec.name} failed: it returned no result.`);
    } catch (e) {
      this.onError(`tool ${spec.name} threw: ${errorMessage(e)}`);
      return fail('internal', `${spec.name} failed: ${errorMessage(e)}`);
    }
  }

  /** The tool panel: every tool with where it runs (Unavailable while it cannot be used). */
  panel(): ToolPanelEntry[] {
    return this.all().map((t) => ({
      name: t.name,
      providerName: this.providerNames.get(t.name)!,
      description: t.description,
      access: t.access,
      where: t.where,
      unattended: t.unattended ?? true,
      scheduled: (t.scheduled ?? true) && (t.unattended ?? true),
      runsOn: this.isAvailable(t) ? (t.runsOn ?? 'Orchestrator') : 'Unavailable',
    }));
  }

  private isAvailable(t: ToolSpec): boolean {
    if (!t.available) return true;
    try {
      return t.available() === true;
    } catch (e) {
      this.onError(`tool ${t.name}: available() threw: ${errorMessage(e)}`);
      return false;
    }
  }

  /** The shared checks, in the order a caller should hear about them. */
  private refusal(t: ToolSpec, caller: ToolCaller): Refusal {
    if (t.where !== 'both' && t.where !== caller.via) {
      return fail('not-here', t.where === 'turn' ? `${t.name} runs only in a live turn, not over /mcp.` : `${t.name} is reachable over /mcp only.`);
    }
    if (t.access === 'admin' && !caller.admin) return fail('forbidden', `${t.name} is for admins only.`);
    // A scheduled turn is unattended too, whatever the caller's flags say.
    if ((caller.unattended || caller.scheduled) && t.unattended === false) return fail('unattended', `${t.name} is refused in scheduled or unattended turns.`);
    if (caller.scheduled && t.scheduled === false) return fail('unattended', `${t.name} is refused in scheduled turns.`);
    if (!this.isAvailable(t)) return fail('unavailable', `${t.name} is not available right now.`);
    return null;
  }
}
