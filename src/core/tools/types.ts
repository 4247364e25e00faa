// The tool contract every subsystem registers into (the tool registry owns
// the mechanism; each subsystem owns its tools). One entry per tool: name,
// description, JSON-schema arguments, handler, and where and for whom it runs.

/** A JSON schema for a tool's arguments (an object schema). */
export type JsonSchema = Record<string, unknown>;

/** Who may call: open to every principal, or admins only (re-checked in the handler path). */
export type ToolAccess = 'open' | 'admin';

/** Where a tool may run: the live turn, POST /mcp, or both. */
export type ToolWhere = 'turn' | 'mcp' | 'both';

/** The tool panel's where-it-runs tag (GET /api/tools). */
export type ToolRunsOn = 'Orchestrator' | 'Sub-agents' | 'Unavailable';

export interface ToolCaller {
  via: 'turn' | 'mcp';
  /** The caller holds the admin role (manageTenants); the owner with the device token does. */
  admin: boolean;
  /** A scheduled turn (routine, wakeup). */
  scheduled: boolean;
  /** An unattended turn (scheduled, or a synthesis turn): no human is waiting. */
  unattended: boolean;
  /** The chat id of the person on whose behalf the call runs (null: the device owner). */
  person: string | null;
  /**
   * The MCP client on the other end of a /mcp call (absent in turns): what
   * a tool may say to it while it runs. Only /mcp calls carry one.
   */
  peer?: ToolPeer;
}

/**
 * What a running tool may send the /mcp client that called it
 * (src/mcp/exchange.ts implements it per call).
 */
export interface ToolPeer {
  /** Progress, when the client asked for it (a progress token); otherwise nothing is sent. */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Asks the client (sampling/createMessage, elicitation/create) and
   * resolves with its result. Rejects with a PeerRefusal when the client did
   * not declare the capability the method needs or cannot be asked on this
   * connection, and with an Error when the client answers with an error or
   * not in time.
   */
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** Why a client cannot be asked: the capability it lacks (sampling, elicitation), or null for the connection. */
export class PeerRefusal extends Error {
  constructor(
    readonly capability: string | null,
    message: string,
  ) {
    super(message);
  }
}

/**
 * MCP content blocks a tool may return besides its text (images, audio,
 * embedded resources). /mcp sends them as the result's content; turns read
 * the text output alone.
 */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string };

/** Every tool result, uniformly (spec: success, output, error, error_type). */
export interface ToolResult {
  success: boolean;
  output: string;
  error: string | null;
  error_type: string | null;
  /** Content blocks for /mcp in place of the text (the output still says what they are). */
  content?: McpContent[];
}

export interface ToolSpec {
  /** Dotted name, e.g. memory.write (sanitized for providers by the registry). */
  name: string;
  description: string;
  /** Arguments schema: type object with properties and required. */
  schema: JsonSchema;
  access: ToolAccess;
  where: ToolWhere;
  /**
   * May run in scheduled or unattended turns (default true). false refuses
   * every unattended turn, scheduled ones and the sub-agent synthesis turn
   * included: the spec's unattended rails (no reboot, no ttsOn, no
   * loop.create), so loop.create and skill.save set it.
   */
  unattended?: boolean;
  /**
   * May run in scheduled turns (default true). false refuses only scheduled
   * turns and still allows other unattended ones, such as the synthesis
   * turn; a tool the unattended rails name needs unattended: false instead.
   */
  scheduled?: boolean;
  /** Registered but currently unusable (e.g. no SD card, no key): not advertised. */
  available?: () => boolean;
  /** Which side of the fabric runs it, for the tool panel (default Orchestrator). */
  runsOn?: Exclude<ToolRunsOn, 'Unavailable'>;
  handler(args: Record<string, unknown>, caller: ToolCaller): ToolResult | Promise<ToolResult>;
}

/** One tool as a caller is offered it (the live prompt, a provider's tool list, tools/list). */
export interface ToolInfo {
  /** The registry's dotted name. */
  name: string;
  /** The name sent to providers (^[a-zA-Z0-9_-]{1,64}$, reg_ before a provider built-in). */
  providerName: string;
  description: string;
  schema: JsonSchema;
  access: ToolAccess;
}

/** One row of the tool panel (GET /api/tools). */
export interface ToolPanelEntry {
  name: string;
  providerName: string;
  description: string;
  access: ToolAccess;
  where: ToolWhere;
  unattended: boolean;
  scheduled: boolean;
  runsOn: ToolRunsOn;
}

export function ok(output: string): ToolResult {
  return { success: true, output, error: null, error_type: null };
}

export function fail(errorType: string, error: string): ToolResult {
  return { success: false, output: '', error, error_type: errorType };
}
