// The web page's file upload (POST /api/files/upload) as it arrives: the
// file part goes to a temporary file under /mem/incoming while its bytes
// come (UTF-8 judged on the way, nothing written past artifact.save's 24 KB),
// and moves into the store only when the whole body has come and passes
// every rule a save passes, judged in the order a save judges them (the
// answers are a save's). A refused or cut-off upload leaves nothing: the
// temporary file is removed, and /mem/incoming is cleared at every start and
// card change (fetch.ts).

import type { Upload } from '../core/upload-route.ts';
import type { SdCard } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpResponse } from '../net/http/types.ts';
import { Utf8Check } from '../util/utf8.ts';
import { INCOMING } from './fetch.ts';
import type { Files } from './files.ts';
import { FilesError, type CardView, type PartWriter } from './store.ts';
import { checkSave, SAVE_MAX_BYTES } from './tools.ts';

/** An upload's project when the form names none. */
export const UPLOAD_PROJECT = 'uploads';

/** Makes one Upload per request; each writes its own temporary file. */
export function fileUploads(files: Files, sd: SdCard, card: CardView, log: Log, answerError: (e: unknown) => HttpResponse): () => Upload {
  let serial = 0;
  return () => {
    const store = files.store;
    const temp = `${INCOMING}/upload-${++serial}`;
    let part: PartWriter | null = null;
    let committed = false;
    /** A write to the card failed: thrown after the checks a save makes first. */
    let failure: FilesError | null = null;
    let utf8 = new Utf8Check();
    let size = 0;

    const drop = (): void => {
      part?.abort();
      part = null;
      if (!committed) return;
      committed = false;
      try {
        sd.remove(temp);
      } catch {
        // a pulled card: /mem/incoming is cleared when the card is next used
      }
    };

    return {
      file() {
        drop();
        failure = null;
        utf8 = new Utf8Check();
        size = 0;
        if (card.probe().tier !== 'present') return null;
        try {
          part = store.beginPart(temp);
        } catch (e) {
          failure = e instanceof FilesError ? e : null;
          if (!failure) throw e;
        }
        return null;
      },
      data(bytes) {
        size += bytes.length;
        utf8.push(bytes);
        if (!part) return null;
        if (size > SAVE_MAX_BYTES) {
          // Too large for a save: refused at the end, in a save's order; nothing more is kept.
          drop();
          return null;
        }
        try {
          part.write(bytes);
        } catch (e) {
          // The writer has removed its part file.
          part = null;
          if (!(e instanceof FilesError)) throw e;
          failure = e;
        }
        return null;
      },
      end(fields, file) {
        if (!file) {
          drop();
          return errorResponse(400, 'no-file', 'Send the file as the multipart field "file".');
        }
        const project = (fields.get('project') ?? '').trim() || UPLOAD_PROJECT;
        const name = (fields.get('name') ?? '').trim() || file.filename;
        try {
          const bad = checkSave(name, file.size);
          if (bad?.code === 'bad-input') throw new FilesError('not-text', `${name}: only .md, .txt, .csv and .json files can be saved.`);
          if (bad) throw bad;
          // Saved files are text: bytes that are not UTF-8 would not read back as they came.
          if (!utf8.wellFormed()) throw new FilesError('not-text', `${name} is not UTF-8 text; only text files can be saved.`);
          card.probe();
          store.check(null, project, name, file.size);
          if (failure) throw failure;
          if (!part) throw new FilesError('card-removed', 'The SD card was removed during the save; nothing was saved and no partial file was left.');
          part.commit();
          part = null;
          committed = true;
          const meta = store.adopt(null, project, name, temp);
          committed = false;
          log.info('files', `uploaded ${meta.project}/${meta.name} (${meta.size} bytes) from the web`);
          return jsonResponse({ saved: true, file: meta });
        } catch (e) {
          drop();
          return answerError(e);
        }
      },
      abort: drop,
    };
  };
}
