// A set of memory records on the card, crash-safe: a snapshot (snap.bin)
// plus an append-only journal of the changes since (jrnl-<gen>.bin), every
// record framed with a checksum (frames.ts). A change is acknowledged only
// after its journal record is synced, so a power cut loses at most the write
// in flight. Compaction writes the next snapshot to snap.new, syncs it and
// renames it over snap.bin; the snapshot names its generation, so the
// journals of earlier generations are stale and removed at the next load. A
// torn journal tail is dropped at load by compacting at once.
//
// Used twice: the working set (/mem/vec) and the archive (/mem/arc).

import type { SdCard, SdFile } from '../hal/index.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import { frame, frames, readForward, writeFramePieces } from './frames.ts';
import type { EmbeddingConfig } from './embedder.ts';
import { decodeMetaBlock, decodePayload, encodeHeader, encodeMetaBlock, OP_DELETE, OP_FLUSH, OP_HEADER, OP_MATRIX, OP_META, OP_PUT, type MemRecord } from './record.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const JOURNAL_FILE = /^jrnl-\d+\.bin$/;

const SNAP = 'snap.bin';
const SNAP_NEW = 'snap.new';
const READ_WINDOW = 64 * 1024;
const MAX_PAYLOAD = 64 * 1024;
/** A snapshot's blocks hold every record: up to 6000 x (1200 bytes of content and the JSON around it). */
const MAX_BLOCK = 32 * 1024 * 1024;

export interface LoadHandlers {
  put(rec: MemRecord, vec: Int8Array, dims: number): void;
  remove(id: string): void;
  flush(keepPermanent: boolean): void;
}

export interface LoadResult {
  /** The embedding the file's vectors were made with (null: an empty, new store). */
  emb: EmbeddingConfig | null;
  /** The journal had a torn or damaged tail (it is dropped by the compaction that follows). */
  torn: boolean;
  records: number;
}

export class VectorFile {
  private gen = 0;
  private emb: EmbeddingConfig | null = null;
  private fh: SdFile | null = null;
  /** Bytes in the current journal (a compaction is due when it grows past the snapshot). */
  journalBytes = 0;
  snapshotBytes = 0;

  constructor(
    private readonly sd: SdCard,
    readonly dir: string,
    private readonly sha: Sha256Api,
  ) {}

  private path(name: string): string {
    return `${this.dir}/${name}`;
  }
  private journal(gen = this.gen): string {
    return this.path(`jrnl-${gen}.bin`);
  }

  /** Reads the snapshot, then the journal, handing every change to the handlers in order. */
  load(h: LoadHandlers): LoadResult {
    this.close();
    this.sd.mkdir(this.dir);
    this.gen = 0;
    this.emb = null;
    let dims = 0;
    let records = 0;
    let torn = false;
    const opts = { sha: this.sha, window: READ_WINDOW, maxPayload: MAX_PAYLOAD };
    let meta: MemRecord[] | null = null;
    const apply = (payload: Uint8Array, first: boolean): boolean => {
      if (first) {
        const d = decodePayload(payload, 0);
        if (!d || d.op !== OP_HEADER) return false;
        this.gen = d.header.gen;
        this.emb = d.header.emb;
        dims = d.header.emb.dims;
        return true;
      }
      if (payload[0] === OP_META) {
        meta = decodeMetaBlock(payload);
        return meta !== null;
      }
      if (payload[0] === OP_MATRIX) {
        const recs: MemRecord[] | null = meta;
        if (!recs || payload.length !== 1 + recs.length * dims) return false;
        // Views into the read buffer: the handler copies each into its index.
        for (let i = 0; i < recs.length; i++) h.put(recs[i]!, new Int8Array(payload.buffer, payload.byteOffset + 1 + i * dims, dims), dims);
        records += recs.length;
        meta = null;
        return true;
      }
      const d = decodePayload(payload, dims);
      if (!d) return false;
      if (d.op === OP_PUT) {
        h.put(d.rec, d.vec, dims);
        records++;
      } else if (d.op === OP_DELETE) h.remove(d.id);
      else if (d.op === OP_FLUSH) h.flush(d.keep);
      return true;
    };
    let first = true;
    const snap = readForward(this.sd, this.path(SNAP), 0, { ...opts, maxPayload: MAX_BLOCK }, (p) => {
      const okay = apply(p, first);
      first = false;
      if (!okay) torn = true;
      return okay;
    });
    this.snapshotBytes = snap.end;
    if (snap.torn) torn = true;
    // The journal of this generation starts with its own header (it may exist without a snapshot).
    first = true;
    let journalGen = -1;
    const jr = readForward(this.sd, this.journal(), 0, opts, (p) => {
      if (first) {
        first = false;
        const d = decodePayload(p, 0);
        if (!d || d.op !== OP_HEADER) return false;
        journalGen = d.header.gen;
        if (this.emb === null) {
          this.emb = d.header.emb;
          dims = d.header.emb.dims;
        }
        return d.header.gen === this.gen && d.header.emb.dims === dims;
      }
      const okay = apply(p, false);
      if (!okay) torn = true;
      return okay;
    });
    if (jr.torn || (jr.size > 0 && journalGen !== this.gen)) torn = true;
    this.journalBytes = jr.end;
    // Leftovers of an interrupted compaction, and journals of earlier generations.
    for (const e of this.sd.list(this.dir)) {
      if (e.isDir) continue;
      if (e.name === SNAP_NEW || (JOURNAL_FILE.test(e.name) && e.name !== `jrnl-${this.gen}.bin`)) this.sd.remove(this.path(e.name));
    }
    return { emb: this.emb, torn, records };
  }

  /** Appends change records (one write, one sync); throws the HAL's error and then nothing was recorded. */
  append(payloads: Uint8Array[], emb: EmbeddingConfig): void {
    try {
      if (!this.fh) {
        this.sd.mkdir(this.dir);
        this.fh = this.sd.open(this.journal(), 'a');
        if (this.fh.size === 0) {
          this.emb = emb;
          payloads = [encodeHeader({ v: 1, gen: this.gen, emb: { ...emb } }), ...payloads];
        }
      }
      const bytes = frames(this.sha, payloads);
      this.fh.write(bytes);
      this.fh.sync();
      this.journalBytes += bytes.length;
    } catch (e) {
      this.close();
      throw e;
    }
  }

  /**
   * Writes every record as the next generation's snapshot and starts an
   * empty journal. On failure the previous snapshot and journal stay valid.
   */
  compact(emb: EmbeddingConfig, records: Iterable<[MemRecord, Int8Array]>): void {
    this.close();
    this.sd.mkdir(this.dir);
    const next = this.gen + 1;
    const tmp = this.path(SNAP_NEW);
    const f = this.sd.open(tmp, 'w');
    let size = 0;
    try {
      // header, then all records' JSON in one block, then all vectors in one block
      const recs: MemRecord[] = [];
      const vecs: Int8Array[] = [];
      for (const [rec, vec] of records) {
        recs.push(rec);
        vecs.push(vec);
      }
      const head = frame(this.sha, encodeHeader({ v: 1, gen: next, emb: { ...emb } }));
      f.write(head);
      size += head.length;
      size += writeFramePieces(this.sha, f, encodeMetaBlock(recs));
      const matrix = new Uint8Array(1 + vecs.length * emb.dims);
      matrix[0] = OP_MATRIX;
      vecs.forEach((v, i) => matrix.set(new Uint8Array(v.buffer, v.byteOffset, emb.dims), 1 + i * emb.dims));
      size += writeFramePieces(this.sha, f, [matrix]);
      f.sync();
    } finally {
      f.close();
    }
    this.sd.rename(tmp, this.path(SNAP));
    const old = this.journal();
    this.gen = next;
    this.emb = { ...emb };
    this.snapshotBytes = size;
    this.journalBytes = 0;
    this.sd.remove(old);
  }

  /** A compaction pays off: the journal outgrew half the snapshot (and 64 KB). */
  compactionDue(): boolean {
    return this.journalBytes > 64 * 1024 && this.journalBytes > this.snapshotBytes / 2;
  }

  close(): void {
    if (!this.fh) return;
    try {
      this.fh.close();
    } catch {
      // the card may be gone; nothing to keep
    }
    this.fh = null;
  }

  /** Bytes of the snapshot and journal on the card. */
  bytesOnCard(): number {
    return this.snapshotBytes + this.journalBytes;
  }
}
