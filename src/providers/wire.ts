// The provider wire: the one place the turn engine sends a round to a
// provider. It picks the backend (dialect) of the provider, resolves the
// model (an invalid or foreign id becomes the provider's default), builds
// the request (one body buffer), sends it through the device's HTTP client
// under the provider's deadline, and reads the answer into a RoundResult.
// It also owns:
//   - the key rule: a key never goes to a plain http:// URL (checked here
//     once more on the finished request, whatever the backend did);
//   - the custom endpoint's schema-less retry after a 400 (many
//     OpenAI-compatible servers refuse response_format json_schema);
//   - the key check (verifyKey), and for the Z.ai-style backend the
//     regional host it pins (probes both hosts, keeps the one that answers,
//     persisted in NVS wire/zaiHost);
//   - the router host (NVS wire/routerHost, default ROUTER_HOST).
//   - the remote tool servers a loop round of provider A or B carries (the
//     owner's approved, ready connectors with their credentials, asked of
//     the source for each round, and only when the round's caller may use
//     them: RoundRequest.connectors); never for another provider, the
//     custom endpoint or the offline demo;
//   - counting every answer's token usage (usage.ts), and telling the
//     assistant which providers are past the owner's monthly budget;
//   - streamed rounds (the owner's stream setting, on by default): the
//     answer read as it arrives (streamed.ts), the turn's text handed to the
//     caller as it grows, the deadline counting silence instead of length.
// It never logs a body or a header: log lines carry the provider, model,
// mode, outcome and time only.

import type { Store } from '../core/store.ts';
import type { Clock } from '../hal/index.ts';
import type { HttpClient } from '../net/http/client.ts';
import { anthropicBackend, ANTHROPIC_VERSION } from './anthropic.ts';
import { CATALOG, resolveModel, ROUTER_HOST, ZAI_HOSTS, ZAI_PATH } from './catalog.ts';
import { usableKey, type WireBackend, type WireRound } from './common.ts';
import { isPlainHttp, origin } from '../net/url.ts';
import { customBackend, type CustomEndpoint } from './custom.ts';
import { fail, fromClient, fromStatus, malformed } from './errors.ts';
import { mistralBackend } from './mistral.ts';
import { openaiBackend } from './openai.ts';
import { routerBackend, routerRoot } from './router.ts';
import { PROVIDERS, type CustomStyle, type ProviderId } from './settings.ts';
import type { ToolServerSource } from './tool-servers.ts';
import type { ProviderErrorKind, RoundCancel, RoundRequest, RoundResult, RoundStream } from '../contracts/index.ts';
import { streamedExchange } from './streamed.ts';
import { zaiBackend } from './zai.ts';
import type { UsageLedger } from './usage.ts';
import { errorMessage } from '../util/json.ts';

/** The NVS namespace the wire keeps its two values in. */
export const WIRE_NS = 'wire';
const ZAI_HOST_KEY = 'zaiHost';
const ROUTER_HOST_KEY = 'routerHost';
/** Deadline of one key-check probe. */
export const VERIFY_MS = 15_000;

/** What the wire reads from the provider settings (ProviderSettings fits). */
export interface WireSettings {
  key(provider: ProviderId): string | null;
  customBase(): string;
  customStyle(): CustomStyle;
  customModel(): string;
  model(): string;
  /** Whether turn rounds are streamed (absent: never). */
  stream?(): boolean;
}

export interface WireLog {
  info(tag: string, message: string): void;
  warn(tag: string, message: string): void;
}

export type VerifyResult =
  | { ok: true; provider: ProviderId; url: string; /** The models list the probe read (the model catalog parses it). */ body?: Uint8Array }
  | { ok: false; provider: ProviderId; error: ProviderErrorKind; message: string; status?: number };

export class ProviderWire {
  constructor(
    private readonly client: Pick<HttpClient, 'request'>,
    private readonly settings: WireSettings,
    private readonly log: WireLog,
    private readonly clock: Pick<Clock, 'monoMs'>,
    private readonly store: Store,
    /** The owner's tool servers (src/connectors/); none when absent. */
    private readonly servers: ToolServerSource | null = null,
    /** Where every answer's token usage is counted (and budgets read); none when absent. */
    readonly usage: UsageLedger | null = null,
  ) {}

  /** Whether the provider has used up the owner's monthly token budget (no new turn goes to it). */
  overBudget(provider: ProviderId): boolean {
    return this.usage?.exhausted(provider) ?? false;
  }

  /**
   * Whether a provider can be used: its key is set (the custom endpoint:
   * its base URL is set, since a plain-http endpoint runs keyless).
   */
  keyed(provider: ProviderId): boolean {
    if (provider === 'custom') return this.settings.customBase().trim() !== '' && origin(this.settings.customBase()) !== null;
    const k = this.settings.key(provider);
    return k !== null && k !== '';
  }

  /** Whether tool-loop rounds may be sent to the provider (or endpoint). */
  loops(provider: ProviderId, endpoint?: CustomEndpoint): boolean {
    if (endpoint) return endpoint.loops === true;
    return provider !== 'custom';
  }

  /** The model a round to this provider uses (what a 'served by' note names). */
  modelFor(provider: ProviderId, requested: string | null | undefined, endpoint?: CustomEndpoint): string {
    if (endpoint) return endpoint.model || CATALOG.custom.defaultModel;
    // The custom endpoint has its own model setting: the orchestrator's model names another provider's.
    if (provider === 'custom') return this.settings.customModel() || CATALOG.custom.defaultModel;
    return resolveModel(provider, requested);
  }

  /** The Z.ai-style host pinned by the last successful key check (null before one). */
  zaiHost(): string | null {
    return this.store.strOrNull(ZAI_HOST_KEY);
  }

  routerHost(): string {
    return this.store.str(ROUTER_HOST_KEY, ROUTER_HOST);
  }

  /** The backend a round to the provider goes through (endpoint: the offline demo or a given custom endpoint). */
  backend(provider: ProviderId, endpoint?: CustomEndpoint): WireBackend {
    if (endpoint) return customBackend(endpoint);
    switch (provider) {
      case 'openai':
        return openaiBackend();
      case 'anthropic':
        return anthropicBackend();
      case 'mistral':
        return mistralBackend();
      case 'zai':
        return zaiBackend(this.zaiHost() ?? CATALOG.zai.base);
      case 'router':
        return routerBackend(this.routerHost());
      case 'custom':
        return customBackend({ base: this.settings.customBase(), style: this.settings.customStyle(), model: this.settings.customModel() });
    }
  }

  /**
   * One round. timeoutMs is the engine's budget for it (already clamped to
   * the turn's remaining time with its floor); the provider's own cap
   * (catalog.ts) shortens it further. endpoint sends a 'custom' round to
   * that endpoint, keyless, instead of the configured one (the offline demo).
   * cancel: the turn's stop closes the round's connection (the request ends 'aborted').
   * Never throws.
   */
  async round(req: RoundRequest, timeoutMs: number, endpoint?: CustomEndpoint, cancel?: RoundCancel, stream?: RoundStream): Promise<RoundResult> {
    const t0 = this.clock.monoMs();
    let result: RoundResult;
    try {
      result = await this.run(req, timeoutMs, endpoint, cancel, stream && this.settings.stream?.() === true ? stream : undefined);
    } catch (e) {
      result = fail('malformed', `wire: ${errorMessage(e)}`);
    }
    const ms = Math.round(this.clock.monoMs() - t0);
    const known = (PROVIDERS as readonly string[]).includes(req.provider);
    const what = `${String(req.provider)}${endpoint ? ' (endpoint)' : ''} ${known ? this.modelFor(req.provider, req.model, endpoint) : '-'} ${req.mode}${req.forceFinal ? ' final' : ''}`;
    if (result.kind === 'error') this.log.warn('wire', `${what}: ${result.error}: ${result.message} (${ms} ms)`);
    else this.log.info('wire', `${what}: ${result.kind === 'turn' ? 'turn' : result.kind === 'continue' ? 'paused, continues' : `${result.calls.length} tool call(s)`} (${ms} ms)`);
    return result;
  }

  /** Request bytes sent in provider rounds since boot (what a turn's prompt costs on the air). */
  sentBytes = 0;

  private async run(req: RoundRequest, timeoutMs: number, endpoint?: CustomEndpoint, cancel?: RoundCancel, stream?: RoundStream): Promise<RoundResult> {
    const provider = req.provider;
    if (!(PROVIDERS as readonly string[]).includes(provider)) return fail('config', `unknown provider ${String(provider)}`);
    if (endpoint && provider !== 'custom') return fail('config', 'an endpoint is only for custom rounds');
    if (provider === 'zai' && !endpoint && this.zaiHost() === null) {
      // No host pinned yet: the key check finds the region first.
      const v = await this.verifyKey('zai');
      if (!v.ok) return fail(v.error, v.message, v.status);
    }
    const backend = this.backend(provider, endpoint);
    if (req.mode === 'loop' && !backend.loops) return fail('config', `${provider} runs no tool loop: send single-shot rounds`);
    const key = endpoint ? null : this.settings.key(provider);
    const round: WireRound = { ...req, model: this.modelFor(provider, req.model, endpoint), ...(stream ? { stream: true } : {}) };
    if (this.servers && !endpoint && req.connectors === true && req.mode === 'loop' && (provider === 'openai' || provider === 'anthropic')) {
      try {
        const servers = await this.servers.serversFor(provider);
        if (servers.length) round.servers = servers;
      } catch (e) {
        this.log.warn('wire', `${provider}: the tool servers could not be read (${errorMessage(e)}); the round goes without them`);
      }
    }
    const cap = Math.max(1, Math.min(timeoutMs, CATALOG[provider].roundMs));
    const t0 = this.clock.monoMs();
    let result = await this.exchange(backend, round, key, cap, cancel, stream);
    if (backend.schemalessRetry && req.mode === 'single' && result.kind === 'error' && result.error === 'http' && result.status === 400) {
      this.log.info('wire', `${provider} refused the schema (HTTP 400): retrying without it`);
      const left = stream ? { ...stream, turnLeftMs: stream.turnLeftMs - (this.clock.monoMs() - t0) } : undefined;
      result = await this.exchange(backend, { ...round, schemaless: true }, key, Math.max(1, cap - (this.clock.monoMs() - t0)), cancel, left);
    }
    return result;
  }

  private async exchange(backend: WireBackend, req: WireRound, key: string | null, timeoutMs: number, cancel?: RoundCancel, stream?: RoundStream): Promise<RoundResult> {
    const built = backend.build(req, key);
    if ('kind' in built) return built;
    if (leaksKey(built.url, built.headers, key)) return fail('config', `refusing to send the ${req.provider} key over plain http`);
    if (cancel?.cancelled) return fail('transport', 'cancelled before it was sent');
    this.sentBytes += built.body.length;
    if (stream) {
      let streamed: RoundResult;
      try {
        // Silence, not length, ends a streamed round: the provider's read deadline between bytes.
        streamed = await streamedExchange({ client: this.client, backend, req, built, idleMs: CATALOG[req.provider].capMs, stream, ...(cancel ? { cancel } : {}) });
      } catch (e) {
        return malformed(req.provider, `unreadable answer (${errorMessage(e)})`);
      }
      if (streamed.usage) this.usage?.record(req.provider, streamed.usage);
      return streamed;
    }
    // A round has no effect on the provider's side (stateless, store false): safe to send again on a fresh connection.
    const res = await this.client.request({ method: 'POST', url: built.url, headers: built.headers, body: built.body, timeoutMs, idempotent: true, ...(cancel ? { cancel } : {}) });
    if (!res.ok) return fromClient(res.error, res.message);
    let result: RoundResult;
    try {
      result = backend.parse(res.response.status, res.response.body, req);
    } catch (e) {
      // Parsers are written not to throw; a bug must still not take the turn down.
      return malformed(req.provider, `unreadable answer (${errorMessage(e)})`);
    }
    // Every answer that says what it cost is counted, whatever it says otherwise (a refusal, a cut answer).
    if (result.usage) this.usage?.record(req.provider, result.usage);
    return result;
  }

  /**
   * Checks the provider's key with a models listing. For the Z.ai-style
   * backend it probes both regional hosts and pins the one that accepts the
   * key. Never throws. list asks for the longest page a provider gives
   * (the model catalog reads the body).
   */
  async verifyKey(provider: ProviderId, list = false): Promise<VerifyResult> {
    try {
      return await this.verify(provider, list);
    } catch (e) {
      return { ok: false, provider, error: 'malformed', message: errorMessage(e) };
    }
  }

  private async verify(provider: ProviderId, list = false): Promise<VerifyResult> {
    const key = this.settings.key(provider);
    if (provider === 'zai') {
      if (key === null || key === '') return { ok: false, provider, error: 'config', message: 'no zai key is set' };
      const probes = await Promise.all(ZAI_HOSTS.map((h) => this.probe(provider, `${h}${ZAI_PATH}/models`, key, 'bearer', false, list)));
      const i = probes.findIndex((p) => p.ok);
      if (i >= 0) {
        this.store.set(ZAI_HOST_KEY, ZAI_HOSTS[i]!);
        this.log.info('wire', `zai key accepted by ${ZAI_HOSTS[i]}: pinned`);
        return probes[i]!;
      }
      return probes.find((p) => !p.ok && p.error === 'auth') ?? probes[0]!;
    }
    switch (provider) {
      case 'openai':
      case 'mistral':
        return this.probe(provider, `${CATALOG[provider].base}/v1/models`, key, 'bearer', false, list);
      case 'anthropic':
        return this.probe(provider, `${CATALOG.anthropic.base}/v1/models${list ? '?limit=1000' : ''}`, key, 'anthropic', false, list);
      case 'router': {
        const r = routerRoot(this.routerHost(), this.modelFor('router', this.settings.model()));
        if (r === null) return { ok: false, provider, error: 'config', message: `bad router host ${this.routerHost()}` };
        return this.probe(provider, `${r.root}/models`, key, 'bearer', false, list);
      }
      case 'custom': {
        const o = origin(this.settings.customBase());
        if (o === null) return { ok: false, provider, error: 'config', message: 'the custom endpoint has no base URL' };
        return this.probe(provider, `${o}/v1/models`, key, 'bearer', true, list);
      }
    }
    return { ok: false, provider, error: 'config', message: `unknown provider ${String(provider)}` };
  }

  private async probe(provider: ProviderId, url: string, key: string | null, auth: 'bearer' | 'anthropic', keyOptional = false, keepBody = false): Promise<VerifyResult> {
    const k = usableKey(url, key, provider, keyOptional);
    if (!('ok' in k)) return { ok: false, provider, error: 'config', message: k.message };
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (k.key !== null) {
      if (auth === 'anthropic') {
        headers['x-api-key'] = k.key;
        headers['anthropic-version'] = ANTHROPIC_VERSION;
      } else headers['Authorization'] = `Bearer ${k.key}`;
    }
    if (leaksKey(url, headers, key)) return { ok: false, provider, error: 'config', message: `refusing to send the ${provider} key over plain http` };
    const res = await this.client.request({ method: 'GET', url, headers, timeoutMs: VERIFY_MS });
    if (!res.ok) {
      const r = fromClient(res.error, res.message);
      return r.kind === 'error' ? { ok: false, provider, error: r.error, message: r.message } : { ok: false, provider, error: 'transport', message: res.message };
    }
    const { status, body } = res.response;
    if (status >= 200 && status <= 299) return { ok: true, provider, url, ...(keepBody ? { body } : {}) };
    const r = fromStatus(provider, status, body);
    return r.kind === 'error' ? { ok: false, provider, error: r.error, message: r.message, status } : { ok: false, provider, error: 'http', message: `HTTP ${status}`, status };
  }
}

/** The last line of the key rule: a finished request to a plain-http URL carries no key anywhere in its headers. */
export function leaksKey(url: string, headers: Record<string, string>, key: string | null): boolean {
  if (key === null || key === '' || !isPlainHttp(url)) return false;
  return Object.entries(headers).some(([k, v]) => k.includes(key) || v.includes(key));
}
