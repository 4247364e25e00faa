// The file routes (the owner's view: the token holder is the device owner
// and sees every file): GET /api/files/list, GET /api/files/dl (streams one
// file from the card; owner=<chat id> picks a person's file of that name,
// otherwise the device owner's comes first), POST /api/files/upload (the web
// page's file upload: a text file saved under artifact.save's rules, among
// the device owner's own files, streamed to the card: upload.ts), and the web page's
// Safety > Downloads: GET and POST /api/downloads (url policy, pending
// approvals, recent jobs).

import { formRoute } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import { uploadRoute } from '../core/upload-route.ts';
import type { SdCard } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { queryParams } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpResponse } from '../net/http/types.ts';
import { URL_POLICIES } from './fetch.ts';
import type { Files } from './files.ts';
import { FilesError, type CardView, type FileMeta } from './store.ts';
import { SAVE_MAX_BYTES } from './tools.ts';
import { fileUploads } from './upload.ts';
import { replaceEvery } from '../util/replace.ts';

const DL_CHUNK = 4096;
/** The upload's body: one saved file (24 KB) and the multipart framing, with room to say "too large" itself. */
const UPLOAD_BODY_MAX = 2 * SAVE_MAX_BYTES + 4096;
const QUOTE = /"/;

const CONTENT_TYPES: Record<string, string> = {
  markdown: 'text/markdown; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  log: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  pdf: 'application/pdf',
};

function filesError(e: unknown): HttpResponse {
  if (e instanceof FilesError) {
    const status =
      e.code === 'not-found'
        ? 404
        : e.code === 'bad-input'
          ? 400
          : e.code === 'too-large'
            ? 413
            : e.code === 'not-text'
              ? 415
              : e.code === 'forbidden'
                ? 403
                : e.code === 'io'
                  ? 500
                  : 409; // no-card, unsupported, card-removed, card-full, quota, name-taken: the device's state, not the request
    return errorResponse(status, e.code, e.message);
  }
  throw e;
}

export function filesListing(files: Files, card: CardView): Record<string, unknown> {
  const c = card.get();
  if (c.tier !== 'present') return { present: false, unsupported: c.tier === 'unsupported', count: 0, bytes: 0, quota: 0, cardTotal: c.totalBytes, cardFree: c.freeBytes, freeBytes: 0, files: [] };
  const list: FileMeta[] = files.store.list(null);
  const used = files.store.usedBytes();
  return {
    present: true,
    unsupported: false,
    count: list.length,
    bytes: used,
    quota: c.quota,
    cardTotal: c.totalBytes,
    cardFree: c.freeBytes,
    freeBytes: files.store.room(),
    files: list,
  };
}

export function fileRoutes(files: Files, card: CardView, log: Log, sd: SdCard): Route[] {
  const downloads = files.downloads;
  return [
    {
      method: 'GET',
      path: '/api/files/list',
      handler: () => {
        try {
          card.probe();
          return jsonResponse(filesListing(files, card));
        } catch (e) {
          return filesError(e);
        }
      },
    },
    {
      method: 'GET',
      path: '/api/files/dl',
      handler: (req) => {
        const q = queryParams(req);
        let project = q.get('project') ?? '';
        let name = q.get('name') ?? '';
        const ref = q.get('ref') ?? q.get('file');
        const owner = q.get('owner') || undefined;
        if (ref && !project) {
          const slash = ref.indexOf('/');
          project = slash < 0 ? '' : ref.slice(0, slash);
          name = slash < 0 ? ref : ref.slice(slash + 1);
        }
        let meta: FileMeta;
        try {
          meta = files.store.stat(null, project, name, owner);
        } catch (e) {
          return filesError(e);
        }
        const store = files.store;
        return {
          status: 200,
          headers: {
            'Content-Type': CONTENT_TYPES[meta.kind] ?? 'application/octet-stream',
            'Content-Disposition': `attachment; filename="${replaceEvery(meta.name, QUOTE, '')}"`,
            'Cache-Control': 'no-store',
          },
          stream: {
            length: meta.size,
            start(w) {
              let at = 0;
              const pump = (): void => {
                while (at < meta.size) {
                  let chunk: Uint8Array;
                  try {
                    chunk = store.readBytes(meta, at, Math.min(DL_CHUNK, meta.size - at));
                  } catch (e) {
                    w.abort(e instanceof Error ? e.message : 'card read failed');
                    return;
                  }
                  if (!chunk.length) {
                    w.abort('the file shrank while it was sent');
                    return;
                  }
                  at += chunk.length;
                  if (!w.write(chunk)) {
                    w.onDrain = pump;
                    return;
                  }
                }
                w.onDrain = null;
                w.end();
              };
              pump();
            },
          },
        };
      },
    },
    uploadRoute({ path: '/api/files/upload', bodyLimit: UPLOAD_BODY_MAX, field: 'file', anyFile: false, fieldsMax: UPLOAD_BODY_MAX, begin: fileUploads(files, sd, card, log, filesError) }),
    {
      method: 'GET',
      path: '/api/downloads',
      handler: () => jsonResponse({ policy: downloads.policy(), policies: URL_POLICIES, pending: downloads.pending(), jobs: downloads.jobs() }),
    },
    formRoute({
      path: '/api/downloads',
      apply: (f) => {
        const action = f.get('action') ?? '';
        if (action === 'policy') {
          const value = f.get('value') ?? '';
          if (!downloads.setPolicy(value)) return errorResponse(400, 'bad-policy', `value must be one of ${URL_POLICIES.join(', ')}.`);
          return jsonResponse({ policy: downloads.policy() });
        }
        if (action === 'approve' || action === 'deny') {
          const id = f.get('id') ?? '';
          const r = action === 'approve' ? downloads.approve(id) : downloads.deny(id);
          if (!r.ok) return errorResponse(r.code === 'not-found' ? 404 : 409, r.code, r.message);
          return jsonResponse({ id: r.id, message: r.message });
        }
        return errorResponse(400, 'bad-action', 'action must be policy, approve or deny.');
      },
    }),
  ];
}
