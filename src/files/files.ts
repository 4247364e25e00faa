// The files subsystem's state: the artifact store, downloads (files.fetch and
// their approvals), and the hooks other subsystems plug in (people, the
// sender, the fetched-content screen). Its face is src/files/index.ts.

import type { Clock, SdCard } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { HttpClient } from '../net/http/client.ts';
import type { Store } from '../core/store.ts';
import type { RandomFill } from '../util/ids.ts';
import { clearIncoming, Downloads } from './fetch.ts';
import { DEFAULT_FILE_PEOPLE, type FilePeople } from './people.ts';
import { ArtifactStore, type CardView, type FileMeta } from './store.ts';

/** Delivers a file to a chat (the chat messenger implements it). chat null: the owner's chat. */
export interface FileSender {
  send(chat: string | null, meta: FileMeta, read: (offset: number, length: number) => Uint8Array): Promise<{ ok: boolean; message: string }>;
}

export type InboundKind = 'photo' | 'document';

/** The prompt-injection screen for fetched content (the chat's moderation gate implements it). */
export type FetchedScreen = (text: string, caller: { admin: boolean }) => string;

export interface FilesDeps {
  sd: SdCard;
  card: CardView;
  clock: Clock;
  log: Log;
  client: HttpClient;
  nvs: Store;
  random: RandomFill;
  notify: (key: string, text: string) => void;
}

export class Files {
  readonly store: ArtifactStore;
  readonly downloads: Downloads;
  private people: FilePeople = DEFAULT_FILE_PEOPLE;
  private fileSender: FileSender | null = null;
  private fetchedScreen: FetchedScreen | null = null;

  constructor(private readonly deps: FilesDeps) {
    this.store = new ArtifactStore({ sd: deps.sd, card: deps.card, clock: deps.clock, log: deps.log, people: () => this.people });
    this.downloads = new Downloads({ store: this.store, sd: deps.sd, client: deps.client, clock: deps.clock, log: deps.log, nvs: deps.nvs, random: deps.random, notify: deps.notify });
  }

  setPeople(people: FilePeople): void {
    this.people = people;
  }

  setSender(sender: FileSender | null): void {
    this.fileSender = sender;
  }

  sender(): FileSender | null {
    return this.fileSender;
  }

  setFetchedScreen(screen: FetchedScreen | null): void {
    this.fetchedScreen = screen;
  }

  /** Text of a downloaded file as a caller's turn may see it (the chat's moderation decides; unscreened without it). */
  screenFetched(text: string, caller: { admin: boolean }): string {
    return this.fetchedScreen ? this.fetchedScreen(text, caller) : text;
  }

  /** The card changed tier: rescan on next use, clear download leftovers. */
  cardChanged(): void {
    this.store.reset();
    if (this.deps.card.live()) clearIncoming(this.deps.sd);
  }

  /**
   * Whether an inbound photo or document can be kept (spec, Other failure
   * rules 7): without a usable card it is declined with a suggestion.
   */
  inbound(kind: InboundKind): { ok: true } | { ok: false; reply: string } {
    const tier = this.deps.card.get().tier;
    if (tier === 'present') return { ok: true };
    const why = tier === 'none' ? 'there is no SD card in the device' : 'the SD card in the device is under 1 GB, which is not supported';
    return { ok: false, reply: `I can't keep ${kind === 'photo' ? 'photos' : 'documents'} right now: ${why}. Could you describe it in a message instead?` };
  }
}
