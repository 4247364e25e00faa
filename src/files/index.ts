// The files subsystem's face: the artifact store, downloads (files.fetch and
// their approvals), the hooks other subsystems plug in, and its tools, routes
// and console commands; the caller's text files as artifact:// resources for
// /mcp (src/files/resources.ts).
//
// For the chat subsystem:
//   files.downloads.approve(id) / deny(id) / pending()   chat /fetch approve <id>
//   files.inbound(kind)       whether an inbound photo or document can be taken
// From the chat (a late need, taken when it mounts: FilesChatView): the
// people's roles (guests cannot share; unknown sees nothing), the sender
// files.send delivers through, the injection screen files.read applies to
// downloaded text.

import type { ResourceProvider } from '../contracts/index.ts';
import type { Later, Subsystem } from '../core/subsystem.ts';
import type { HttpClient } from '../net/http/client.ts';
import { filesCommands } from './console.ts';
import { clearIncoming } from './fetch.ts';
import { Files, type FetchedScreen, type FileSender } from './files.ts';
import type { FilePeople } from './people.ts';
import { fileResources } from './resources.ts';
import { fileRoutes } from './routes.ts';
import type { CardState, CardView } from './store.ts';
import { fileTools } from './tools.ts';

// What other folders use of files besides the face (the chat's bridge, images, the agents' documents).
export { FilesError, type ArtifactStore, type FileMeta, type PartWriter } from './store.ts';
export { checkName, checkProject, extensionOf, NAME_MAX, nameFromUrl } from './names.ts';
export { INCOMING } from './fetch.ts';
export { Files } from './files.ts';

/** The card as files needs it: its tier, a probe, and word of a change (src/storage). */
interface FilesCard extends CardView {
  onChange(listener: (state: CardState, previous: CardState) => void): void;
}

/** What files needs from others. */
export interface FilesOptions {
  card: FilesCard;
  /** Outbound HTTP(S) for files.fetch. */
  client: HttpClient;
  /** Owner notices (the chat's outbox): a download waiting for approval, one that finished. */
  outbox: { post(key: string, text: string): unknown };
  /** The chat (src/chat/, mounted later): the people's roles, files.send's delivery, the screen for downloaded text. */
  chat?: Later<{ filesView(): FilesChatView }>;
}

/** What files takes from the chat once it mounts (until then: the owner alone, no delivery, no screen). */
export interface FilesChatView {
  people: FilePeople;
  sender: FileSender;
  screen: FetchedScreen;
}

/** What files provides: the store and downloads (Files), and its resources for /mcp. */
export interface FilesFace {
  files: Files;
  resources: ResourceProvider[];
}

export const files: Subsystem<FilesOptions, FilesFace> = {
  name: 'files',
  needs: ['card', 'client', 'outbox'],
  later: ['chat'],
  provides: { files: (f) => f.files, fileResources: (f) => f.resources },
  start(k, o) {
    const sd = k.hal.sd;
    const f = new Files({ sd, card: o.card, clock: k.hal.clock, log: k.log, client: o.client, nvs: k.store('files'), random: (b) => k.hal.system.random(b), notify: (key, text) => void o.outbox.post(key, text) });
    o.card.onChange(() => f.cardChanged());
    if (o.card.live()) clearIncoming(sd);
    o.chat?.when((c) => {
      const view = c.filesView();
      f.setPeople(view.people);
      f.setSender(view.sender);
      f.setFetchedScreen(view.screen);
    });
    return { provides: { files: f, resources: [fileResources(f)] }, tools: fileTools(f), routes: fileRoutes(f, o.card, k.log, sd), commands: filesCommands(f, o.card) };
  },
};
