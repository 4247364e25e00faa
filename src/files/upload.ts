// The web page's file upload (POST /api/files/upload) as it arrives: the
// file part goes to a temporary file under /mem/incoming while its bytes
// come (UTF-8 judged on the way, nothing written past artifact.save's 24 KB),
// and moves into the store only when the whole body has come and passes
// every rule a save passes, judged in the order a save judges them (the
// answers are a save's). A refused or cut-off upload leaves nothing: the
// temporary file is removed, and /mem/incoming is cleared at every start and
// card change (fetch.ts).

import type { Upload, UploadedFile } from '../core/upload-route.ts';
import type { SdCard } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpResponse } from '../net/http/types.ts';
import { Utf8Check } from '../util/utf8.ts';
import { INCOMING } from './fetch.ts';
import type { Files } from './files.ts';
import { FilesError, type ArtifactStore, type CardView, type PartWriter } from './store.ts';
import { checkSave, SAVE_MAX_BYTES } from './tools.ts';

/** An upload's project when the form names none. */
export const UPLOAD_PROJECT = 'uploads';

interface UploadDeps {
  sd: SdCard;
  card: CardView;
  log: Log;
  answerError: (e: unknown) => HttpResponse;
}

/** Makes one Upload per request; each writes its own temporary file. */
export function fileUploads(files: Files, sd: SdCard, card: CardView, log: Log, answerError: (e: unknown) => HttpResponse): () => Upload {
  const d: UploadDeps = { sd, card, log, answerError };
  let serial = 0;
  return () => new FileUpload(d, files.store, `${INCOMING}/upload-${++serial}`);
}

class FileUpload implements Upload {
  private part: PartWriter | null = null;
  private committed = false;
  /** A write to the card failed: thrown after the checks a save makes first. */
  private failure: FilesError | null = null;
  private utf8 = new Utf8Check();
  private size = 0;

  constructor(
    private readonly d: UploadDeps,
    private readonly store: ArtifactStore,
    private readonly temp: string,
  ) {}

  private drop(): void {
    this.part?.abort();
    this.part = null;
    if (!this.committed) return;
    this.committed = false;
    try {
      this.d.sd.remove(this.temp);
    } catch {
      // a pulled card: /mem/incoming is cleared when the card is next used
    }
  }

  file(): HttpResponse | null {
    this.drop();
    this.failure = null;
    this.utf8 = new Utf8Check();
    this.size = 0;
    if (this.d.card.probe().tier !== 'present') return null;
    try {
      this.part = this.store.beginPart(this.temp);
    } catch (e) {
      this.failure = e instanceof FilesError ? e : null;
      if (!this.failure) throw e;
    }
    return null;
  }

  data(bytes: Uint8Array): HttpResponse | null {
    this.size += bytes.length;
    this.utf8.push(bytes);
    if (!this.part) return null;
    if (this.size > SAVE_MAX_BYTES) {
      // Too large for a save: refused at the end, in a save's order; nothing more is kept.
      this.drop();
      return null;
    }
    try {
      this.part.write(bytes);
    } catch (e) {
      // The writer has removed its part file.
      this.part = null;
      if (!(e instanceof FilesError)) throw e;
      this.failure = e;
    }
    return null;
  }

  end(fields: Map<string, string>, file: UploadedFile | null): HttpResponse {
    if (!file) {
      this.drop();
      return errorResponse(400, 'no-file', 'Send the file as the multipart field "file".');
    }
    const project = (fields.get('project') ?? '').trim() || UPLOAD_PROJECT;
    const name = (fields.get('name') ?? '').trim() || file.filename;
    try {
      const bad = checkSave(name, file.size);
      if (bad?.code === 'bad-input') throw new FilesError('not-text', `${name}: only .md, .txt, .csv and .json files can be saved.`);
      if (bad) throw bad;
      // Saved files are text: bytes that are not UTF-8 would not read back as they came.
      if (!this.utf8.wellFormed()) throw new FilesError('not-text', `${name} is not UTF-8 text; only text files can be saved.`);
      this.d.card.probe();
      this.store.check(null, project, name, file.size);
      if (this.failure) throw this.failure;
      if (!this.part) throw new FilesError('card-removed', 'The SD card was removed during the save; nothing was saved and no partial file was left.');
      this.part.commit();
      this.part = null;
      this.committed = true;
      const meta = this.store.adopt(null, project, name, this.temp);
      this.committed = false;
      this.d.log.info('files', `uploaded ${meta.project}/${meta.name} (${meta.size} bytes) from the web`);
      return jsonResponse({ saved: true, file: meta });
    } catch (e) {
      this.drop();
      return this.d.answerError(e);
    }
  }

  abort(): void {
    this.drop();
  }
}
