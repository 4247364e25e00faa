// A device on the in-memory HAL for the sub-agent fabric's tests: turns go
// through a scripted wire (so a test says what the orchestrator answers),
// sub-agent backends reach the provider emulator's job logic on the
// in-memory network (agent-net.ts), everything on the virtual clock.

import { boot, type Device } from '../../src/main.ts';
import type { ProviderId } from '../../src/providers/settings.ts';
import type { RoundRequest, RoundResult, TranscriptItem } from '../../src/contracts/index.ts';
import type { TurnRequest } from '../../src/turn/engine.ts';
import type { TurnWire } from '../../src/turn/index.ts';
import { agentNet, type AgentNet } from './agent-net.ts';
import { createMemHal, rebootMemHal, type MemHal, type MemHalOptions } from './memhal.ts';

type Step = RoundResult | ((req: RoundRequest) => RoundResult | Promise<RoundResult>);

export class ScriptedWire implements TurnWire {
  readonly seen: Array<{ req: RoundRequest; transcript: TranscriptItem[] }> = [];
  steps: Step[] = [];
  keys = new Set<ProviderId>();
  script(...steps: Step[]): this {
    this.steps.push(...steps);
    return this;
  }
  keyed(p: ProviderId): boolean {
    return this.keys.has(p);
  }
  loops(): boolean {
    return true;
  }
  modelFor(p: ProviderId, requested: string | null | undefined): string {
    return requested || `${p}-default`;
  }
  async round(req: RoundRequest): Promise<RoundResult> {
    this.seen.push({ req, transcript: req.transcript.map((t) => ({ ...t })) });
    const step = this.steps.shift();
    if (!step) return { kind: 'error', error: 'transport', message: 'no script left' };
    return typeof step === 'function' ? step(req) : step;
  }
  /** The system prompt (its leading system items: the stable part and the changing part) and user text of the nth round. */
  prompt(n: number): { system: string; user: string } {
    const t = this.seen[n]!.transcript;
    const lead = t.slice(0, Math.max(0, t.findIndex((i) => i.kind !== 'system')));
    return {
      system: lead.map((i) => (i as { text: string }).text).join('\n\n'),
      user: (t.find((i) => i.kind === 'user') as { text: string } | undefined)?.text ?? '',
    };
  }
}

export const turnResult = (fields: Record<string, unknown>): RoundResult => {
  const json = JSON.stringify({ reply: '', memory: '', ask: '', ...fields });
  return { kind: 'turn', json, items: [{ kind: 'assistant', text: json }] };
};

export function spawnOp(task: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { op: 'spawn', task, id: null, provider: null, model: null, skill: null, name: null, project: null, attach: null, ...over };
}

export interface Rig {
  mem: MemHal;
  device: Device;
  wire: ScriptedWire;
  net: AgentNet;
}

export interface RigOptions {
  keys?: ProviderId[];
  priority?: string;
  mem?: MemHalOptions;
  nvs?: Array<[string, string, string | number]>;
}

export function rig(options: RigOptions = {}): Rig {
  const mem = createMemHal(options.mem ?? {});
  return bootRig(mem, options);
}

function bootRig(mem: MemHal, options: RigOptions): Rig {
  mem.nvs.setMany('wifi', [
    ['ssid', 'Home'],
    ['pass', 'home-pass-1'],
  ]);
  for (const k of options.keys ?? ['anthropic', 'openai', 'mistral']) mem.nvs.set('orch', `key.${k}`, `sk-${k}-secret`);
  mem.nvs.set('orch', 'priority', options.priority ?? 'anthropic,openai,mistral');
  for (const [ns, key, value] of options.nvs ?? []) mem.nvs.set(ns, key, value);
  const wire = new ScriptedWire();
  wire.keys = new Set(options.keys ?? ['anthropic', 'openai', 'mistral']);
  const net = agentNet(mem.net, mem.clock);
  const device = boot(mem.hal, { wire });
  return { mem, device, wire, net };
}

/** A restart on the same NVS and card (volatile state fresh); the emulator's jobs carry over. */
export function reboot(r: Rig, reason: 'software' | 'power-on' = 'software'): Rig {
  r.device.stop();
  const mem = rebootMemHal(r.mem, reason);
  const wire = new ScriptedWire();
  wire.keys = r.wire.keys;
  // The same provider state (jobs keep running at the provider while the device restarts).
  const net = r.net;
  rebindAgentNet(net, mem);
  const device = boot(mem.hal, { wire });
  return { mem, device, wire, net };
}

/** Serves an existing AgentNet's jobs on a new in-memory network (after a restart). */
function rebindAgentNet(net: AgentNet, mem: MemHal): void {
  net.rebind(mem.net, mem.clock);
}

/** Runs a turn for the owner in chat c1 and resolves with its outcome and what it delivered. */
export async function turn(device: Device, text: string, extra: Partial<TurnRequest> = {}) {
  const delivered: string[] = [];
  const outcome = await device.assistant.engine.run({ chat: 'c1', text, person: null, admin: true, origin: 'console', deliver: (r) => delivered.push(r), ...extra });
  return { outcome, delivered };
}
