// A set of memory records on the card, crash-safe: a snapshot (snap.bin)
// plus an append-only journal of the changes since (jrnl-<gen>.bin), every
// record framed with a checksum (frames.ts). A change is acknowledged only
// after its journal record is synced, so a power cut loses at most the write
// in flight. Compaction writes the next snapshot to snap.new, syncs it and
// renames it over snap.bin; the snapshot names its generation, so the
// journals of earlier generations are stale and removed at the next load. A
// torn journal tail is dropped at load by compacting at once.
//
// Format 2 (record-bin.ts): one record per memory, its content at the end as
// JSON that a load skips and a search reads back by offset (readText); the
// load hands every record's place to the index. Format 1 files (one JSON per
// record, or a snapshot of one JSON array and one matrix) still load, their
// contents into RAM, and the next compaction writes format 2.
//
// Used twice: the working set (/mem/vec) and the archive (/mem/arc).

import type { SdCard, SdFile } from '../hal/index.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import { FRAME_OVERHEAD, frames, readForward, writeFramePieces, frame } from './frames.ts';
import type { EmbeddingConfig } from './embedder.ts';
import { decodeRecord, OP_RECORD, type DecodedRecord } from './record-bin.ts';
import { decodeMetaBlock, decodePayload, encodeHeader, OP_DELETE, OP_FLUSH, OP_HEADER, OP_MATRIX, OP_META, OP_PUT, type MemRecord } from './record.ts';
import type { TextSource, TextWhere } from './vector-index.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const JOURNAL_FILE = /^jrnl-\d+\.bin$/;

const SNAP = 'snap.bin';
const SNAP_NEW = 'snap.new';
const READ_WINDOW = 64 * 1024;
const MAX_PAYLOAD = 64 * 1024;
/** A format 1 snapshot's blocks hold every record: up to 6000 x (1200 bytes of content and the JSON around it). */
const MAX_BLOCK = 32 * 1024 * 1024;
export const FORMAT = 2;

export interface LoadHandlers {
  /** The file's embedding, once its header is read (before any record). */
  begin(emb: EmbeddingConfig): void;
  /** A format 2 record; its content lies at `where` (read it with readText). */
  record(d: DecodedRecord, where: TextWhere): void;
  /** A format 1 record, content included (the vector is a view: copy it). */
  legacy(rec: MemRecord, vec: Int8Array, dims: number): void;
  remove(id: string): void;
  flush(keepPermanent: boolean): void;
}

export interface LoadResult {
  /** The embedding the file's vectors were made with (null: an empty, new store). */
  emb: EmbeddingConfig | null;
  /** The journal had a torn or damaged tail (it is dropped by the compaction that follows). */
  torn: boolean;
  /** The file is of format 1: a compaction rewrites it. */
  old: boolean;
  records: number;
}

/** One load's progress through the snapshot and the journal. */
interface LoadState {
  dims: number;
  records: number;
  torn: boolean;
  old: boolean;
  /** A format 1 snapshot's records, waiting for the matrix block that follows them. */
  meta: MemRecord[] | null;
}

type ReadOptions = Parameters<typeof readForward>[3];

/** A file's header payload: true when it is one (a format other than this one marks the file old). */
function readHeader(s: LoadState, p: Uint8Array): boolean {
  const d = decodePayload(p, 0);
  if (!d || d.op !== OP_HEADER) return false;
  if (d.header.v !== FORMAT) s.old = true;
  return true;
}

/** One change record of either file (1 snapshot, 2 journal) handed to the handlers; false when it does not decode. */
function applyPayload(s: LoadState, h: LoadHandlers, payload: Uint8Array, file: 1 | 2, at: number): boolean {
  if (payload[0] === OP_RECORD) {
    const d = decodeRecord(payload);
    if (!d) return false;
    h.record(d, { file, off: at + d.coldAt, len: d.coldLength });
    s.records++;
    return true;
  }
  if (payload[0] === OP_META) {
    s.meta = decodeMetaBlock(payload);
    s.old = true;
    return s.meta !== null;
  }
  if (payload[0] === OP_MATRIX) {
    const recs = s.meta;
    const dims = s.dims;
    if (!recs || payload.length !== 1 + recs.length * dims) return false;
    for (let i = 0; i < recs.length; i++) h.legacy(recs[i]!, new Int8Array(payload.buffer, payload.byteOffset + 1 + i * dims, dims), dims);
    s.records += recs.length;
    s.meta = null;
    return true;
  }
  const d = decodePayload(payload, s.dims);
  if (!d) return false;
  if (d.op === OP_PUT) {
    s.old = true;
    h.legacy(d.rec, d.vec, s.dims);
    s.records++;
  } else if (d.op === OP_DELETE) h.remove(d.id);
  else if (d.op === OP_FLUSH) h.flush(d.keep);
  return true;
}

export class VectorFile implements TextSource {
  private gen = 0;
  private emb: EmbeddingConfig | null = null;
  private fh: SdFile | null = null;
  /** Bytes in the current journal (a compaction is due when it grows past the snapshot). */
  journalBytes = 0;
  snapshotBytes = 0;
  /** The last window read per file (1 snapshot, 2 journal): reads in file order cost one card read per window. */
  private window: Array<{ at: number; bytes: Uint8Array } | null> = [null, null, null];

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
    this.forget();
    this.sd.mkdir(this.dir);
    this.gen = 0;
    this.emb = null;
    const s: LoadState = { dims: 0, records: 0, torn: false, old: false, meta: null };
    const opts = { sha: this.sha, window: READ_WINDOW, maxPayload: MAX_PAYLOAD };
    this.loadSnapshot(s, h, opts);
    this.loadJournal(s, h, opts);
    // Leftovers of an interrupted compaction, and journals of earlier generations.
    for (const e of this.sd.list(this.dir)) {
      if (e.isDir) continue;
      if (e.name === SNAP_NEW || (JOURNAL_FILE.test(e.name) && e.name !== `jrnl-${this.gen}.bin`)) this.sd.remove(this.path(e.name));
    }
    return { emb: this.emb, torn: s.torn, old: s.old, records: s.records };
  }

  /** The snapshot: its header names the generation and the embedding, then its records. */
  private loadSnapshot(s: LoadState, h: LoadHandlers, opts: ReadOptions): void {
    let first = true;
    const snap = readForward(this.sd, this.path(SNAP), 0, { ...opts, maxPayload: MAX_BLOCK }, (p, start) => {
      if (first) {
        first = false;
        const d = decodePayload(p, 0);
        if (!d || d.op !== OP_HEADER || !readHeader(s, p)) return (s.torn = true), false;
        this.gen = d.header.gen;
        this.emb = d.header.emb;
        s.dims = d.header.emb.dims;
        h.begin(this.emb);
        return true;
      }
      const okay = applyPayload(s, h, p, 1, start + 8);
      if (!okay) s.torn = true;
      return okay;
    });
    this.snapshotBytes = snap.end;
    if (snap.torn) s.torn = true;
  }

  /** The journal of this generation: it starts with its own header (it may exist without a snapshot). */
  private loadJournal(s: LoadState, h: LoadHandlers, opts: ReadOptions): void {
    let first = true;
    let journalGen = -1;
    const jr = readForward(this.sd, this.journal(), 0, opts, (p, start) => {
      if (first) {
        first = false;
        const d = decodePayload(p, 0);
        if (!d || d.op !== OP_HEADER || !readHeader(s, p)) return false;
        journalGen = d.header.gen;
        if (this.emb === null) {
          this.emb = d.header.emb;
          s.dims = d.header.emb.dims;
          h.begin(this.emb);
        }
        return d.header.gen === this.gen && d.header.emb.dims === s.dims;
      }
      const okay = applyPayload(s, h, p, 2, start + 8);
      if (!okay) s.torn = true;
      return okay;
    });
    if (jr.torn || (jr.size > 0 && journalGen !== this.gen)) s.torn = true;
    this.journalBytes = jr.end;
  }

  private header(emb: EmbeddingConfig, gen: number): Uint8Array {
    // format 2 (record-bin.ts); a format 1 reader refuses the version
    return encodeHeader({ v: FORMAT, gen, emb: { ...emb } });
  }

  /**
   * Appends change records (one write, one sync) and returns where each
   * payload starts in the journal; throws the HAL's error and then nothing
   * was recorded.
   */
  append(payloads: Uint8Array[], emb: EmbeddingConfig): number[] {
    try {
      if (!this.fh) {
        this.sd.mkdir(this.dir);
        this.fh = this.sd.open(this.journal(), 'a');
        if (this.fh.size === 0) {
          this.emb = emb;
          const head = frame(this.sha, this.header(emb, this.gen));
          this.fh.write(head);
          this.journalBytes = head.length;
        } else this.journalBytes = this.fh.size;
      }
      const at: number[] = [];
      let o = this.journalBytes;
      for (const p of payloads) {
        at.push(o + 8);
        o += p.length + FRAME_OVERHEAD;
      }
      const bytes = frames(this.sha, payloads);
      this.fh.write(bytes);
      this.fh.sync();
      this.journalBytes += bytes.length;
      return at;
    } catch (e) {
      this.close();
      throw e;
    }
  }

  /**
   * Writes every record (payloads, in order) as the next generation's
   * snapshot and starts an empty journal; returns where each payload starts
   * in the new snapshot. On failure the previous snapshot and journal stay
   * valid. Payloads are asked for one at a time, so a snapshot never lies in RAM whole.
   */
  compact(emb: EmbeddingConfig, count: number, payloadOf: (i: number) => Uint8Array, feed: () => void = () => undefined): number[] {
    this.close();
    this.sd.mkdir(this.dir);
    const next = this.gen + 1;
    const tmp = this.path(SNAP_NEW);
    const f = this.sd.open(tmp, 'w');
    const at: number[] = [];
    let size = 0;
    try {
      size += writeFramePieces(this.sha, f, [this.header(emb, next)]);
      for (let i = 0; i < count; i++) {
        const p = payloadOf(i);
        at.push(size + 8);
        size += writeFramePieces(this.sha, f, [p]);
        // thousands of memories take seconds on the device: the watchdog must not take it for a hang
        if ((i & 255) === 255) feed();
      }
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
    this.forget();
    this.sd.remove(old);
    return at;
  }

  /** The bytes of a record's content JSON (TextSource), or null when the card cannot give them. */
  read(file: 1 | 2, off: number, len: number): Uint8Array | null {
    const w = this.window[file];
    if (w && off >= w.at && off + len <= w.at + w.bytes.length) return w.bytes.subarray(off - w.at, off - w.at + len);
    try {
      const path = file === 1 ? this.path(SNAP) : this.journal();
      const limit = file === 1 ? this.snapshotBytes : this.journalBytes;
      const bytes = this.sd.read(path, off, Math.max(len, Math.min(READ_WINDOW, limit - off)));
      if (bytes.length < len) return null;
      this.window[file] = { at: off, bytes };
      return bytes.subarray(0, len);
    } catch {
      return null;
    }
  }

  /** Drops the read windows (the files changed under them). */
  private forget(): void {
    this.window = [null, null, null];
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
