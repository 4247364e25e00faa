// The assistant's stack on a device kernel, mounted as main.ts mounts it, for
// tests of the subsystems that sit on a real turn (models, images, usage
// budgets, tool servers): the system, Wi-Fi, the providers (the real wire,
// or the test's), the prompt, the turn and memory, over one card, client and
// timeline. The connectors' prompt line and tool servers are the test's
// (none by default); the people are the test's (the chat's), or the owner's
// alone (admin).
import type { ToolServerSource } from '../../src/contracts/index.ts';
import { mount, ready, type Later } from '../../src/core/subsystem.ts';
import type { Chat } from '../../src/chat/chat.ts';
import { chat } from '../../src/chat/index.ts';
import { Outbox, OUTBOX_NS } from '../../src/outbox/outbox.ts';
import { files, type Files } from '../../src/files/index.ts';
import type { ChatRole as Role } from '../../src/contracts/index.ts';
import type { Memory } from '../../src/memory/index.ts';
import type { ModelCatalog } from '../../src/models/index.ts';
import { prompt } from '../../src/prompt/index.ts';
import { providers, type ProvidersFace } from '../../src/providers/index.ts';
import type { Provisioning } from '../../src/wifi/provisioning.ts';
import { turn, turnCodec, type TurnFace, type TurnWire } from '../../src/turn/index.ts';
import { bootParts, mountMemory, mountSystem, mountWifi, pending, type BootParts, type DeviceKernel, type SystemRig } from './kernel.ts';

export interface AssistantRig extends TurnFace {
  system: SystemRig;
  provisioning: Provisioning;
  parts: BootParts;
  providers: ProvidersFace;
  memory: Memory;
  outbox: Outbox;
  /** The turn's late needs a test meets when it mounts them (models' catalog, the agents' session ops). */
  catalog: Later<ModelCatalog> & { set(value: ModelCatalog): void };
}

/** The chat's people as the system and the turn read them. */
interface ChatPeople {
  roleOf(person: string | null): Role;
  personOf(chat: string): string | null;
  conversationPerson(conversation: string): string | null;
}

export interface AssistantRigOptions {
  /** A provider wire to use instead of the real one (main.ts's BootOptions.wire). */
  wire?: TurnWire;
  toolServers?: ToolServerSource;
  /** The chat's people (roles) and whose namespace a chat is: a late need, met when the test mounts the chat. */
  people?: Later<ChatPeople>;
}

export function mountAssistant(dk: DeviceKernel, options: AssistantRigOptions = {}): AssistantRig {
  const { kernel } = dk;
  const people = options.people ?? ready<ChatPeople>({ roleOf: (person) => (person === null ? 'admin' : 'unknown'), personOf: () => null, conversationPerson: () => null });
  const system = mountSystem(kernel, { people });
  const provisioning = mountWifi(dk);
  const parts = bootParts(kernel);
  const outbox = new Outbox(kernel.store(OUTBOX_NS), kernel.clock);
  const face = mount(kernel, providers, { client: parts.client, tls: parts.tls, connectors: options.toolServers ?? { serversFor: async () => [] }, turnCodec: ready(turnCodec) });
  // Memory mounts after the prompt and the turn, as in the boot: they read it when they run; so does the models' catalog.
  const catalog = pending<ModelCatalog>('catalog');
  const later = pending<Memory>('memory');
  const { blocks } = mount(kernel, prompt, {
    providers: face.settings,
    memory: later,
    connectors: { promptLine: () => '' },
    time: system.time,
  });
  const t = mount(kernel, turn, {
    providers: face.settings,
    wire: options.wire ?? face.wire,
    blocks,
    memory: later,
    outbox,
    people,
    actions: system.actions,
    catalog,
  });
  const memory = mountMemory(kernel, { card: system.card, client: parts.client, hotspots: parts.hotspots, timeline: system.timeline, providers: face.settings, usage: face.usage });
  later.set(memory);
  return { ...t, system, provisioning, parts, providers: face, memory, outbox, catalog };
}

export interface MessengerRig extends AssistantRig {
  /** The Chat (made first, as in main.ts: its people decide the roles), mounted after the file store. */
  chat: Chat;
  files: Files;
}

/**
 * The chat messenger over a real turn: the Chat made first (its people decide the roles), the assistant's stack (the
 * test's wire, or the real one), the file store on the system's card, and the chat. Music, updates and speech are
 * small fakes (not part of the tests that use this).
 */
export function mountMessenger(dk: DeviceKernel, options: Omit<AssistantRigOptions, 'people'> = {}): MessengerRig {
  const { kernel } = dk;
  // The chat mounts last, as in the boot: the people the system and the turn read are met then.
  const people = pending<ChatPeople>('people');
  const rig = mountAssistant(dk, { ...options, people });
  // Files take the chat's side (people, delivery, the screen) when it mounts, as in the boot.
  const later = pending<Chat>('chat');
  const { files: store } = mount(kernel, files, { card: rig.system.card, client: rig.parts.client, outbox: rig.outbox, chat: later });
  const c = mount(kernel, chat, {
    outbox: rig.outbox,
    client: rig.parts.client,
    assistant: rig.assistant,
    compactor: rig.compactor,
    providers: rig.providers.settings,
    files: store,
    music: { command: () => ({ message: 'no music in this test' }) },
    updates: { apply: () => ({ ok: false, reason: 'up-to-date', message: 'The firmware is up to date.', offer: null }), addBusyProbe: () => undefined },
    actions: rig.system.actions,
    memory: ready(rig.memory),
    voice: pending('voice'),
    audio: { endpoint: () => ({ ok: false, reason: 'no speech in this test' }), voiceMessage: () => Promise.resolve({ ok: false, reason: 'no speech in this test' }) },
    card: rig.system.card,
  });
  people.set(c.people);
  later.set(c);
  return { ...rig, chat: c, files: store };
}
