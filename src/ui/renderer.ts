// The incremental renderer: keeps the display list on screen and the set of
// display rectangles that no longer match it, and draws those in tiles of at
// most tilePx pixels (begin, send, end on the HAL display), a bounded amount
// per tick. No frame ever needs a buffer larger than one tile: the biggest
// allocation is the tile buffer (and, for a sideways mount, a second one to
// turn tiles in), made once.
//
// Invariant: every display pixel outside the pending rectangles shows the
// current list. show() adds the boxes of the items that changed (old and
// new) so the invariant holds whatever was half drawn; a tile that fails to
// draw (a bus error, TFTBREAK) stays pending and is retried, with back-off.

import type { Clock, Display } from '../hal/index.ts';
import { sameItem, type DisplayList, type Item } from './list.ts';
import { canvasSize, canvasToDisplay, displayToCanvas, drawTile, orientTile, type Rect, type Rotation } from './raster.ts';

export interface RendererOptions {
  /** Largest tile in pixels (the tile buffers' size). */
  tilePx?: number;
  /** Pixels drawn per tick at most. */
  tickPx?: number;
  /** Milliseconds of drawing per tick at most (checked between tiles). */
  tickMs?: number;
}

export const DEFAULT_TILE_PX = 4096;
export const DEFAULT_TICK_PX = 8 * 1024;
export const DEFAULT_TICK_MS = 4;
/** Beyond this many pending rectangles they merge into their bounding box. */
const MAX_PENDING = 24;
const MAX_BACKOFF_MS = 2000;

export interface RenderStats {
  /** Times the screen caught up with its list. */
  frames: number;
  tiles: number;
  pixels: number;
  /** Largest tile sent, in pixels. */
  largestTile: number;
  errors: number;
  lastError: string | null;
  /** Monotonic ms of the last error. */
  lastErrorAt: number | null;
  /** Wall time from the first tile of the last frame to its last, and its pixels. */
  lastFrameMs: number;
  lastFramePx: number;
  /** Pixels still to draw. */
  pendingPx: number;
}

function area(r: Rect): number {
  return r.w * r.h;
}

function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

function touching(a: Rect, b: Rect): boolean {
  return a.x <= b.x + b.w && b.x <= a.x + a.w && a.y <= b.y + b.h && b.y <= a.y + a.h;
}

function itemKey(item: Item): number {
  return ((item.x + 2048) * 8192 + item.y + 2048) * 4 + (item.kind === 'rect' ? 0 : item.kind === 'text' ? 1 : item.kind === 'disc' ? 2 : 3);
}

export class Renderer {
  readonly tilePx: number;
  private tickPx: number;
  private tickMs: number;
  private list: DisplayList | null = null;
  private pending: Rect[] = [];
  private readonly tileBuf: Uint16Array;
  /** For sideways mounts only (made on first use). */
  private turnBuf: Uint16Array | null = null;
  /** Views of the tile buffers by length, reused: on XS every subarray() is a new object. */
  private readonly views = new Map<number, Uint16Array>();
  private rot: Rotation = 0;
  private canvasW: number;
  private canvasH: number;
  private faults = 0;
  private backoffMs = 0;
  private retryAt = 0;
  private frameStart: number | null = null;
  private framePx = 0;
  private readonly stat: RenderStats = {
    frames: 0,
    tiles: 0,
    pixels: 0,
    largestTile: 0,
    errors: 0,
    lastError: null,
    lastErrorAt: null,
    lastFrameMs: 0,
    lastFramePx: 0,
    pendingPx: 0,
  };

  constructor(
    private readonly display: Display,
    private readonly clock: Clock,
    options: RendererOptions = {},
  ) {
    this.tilePx = Math.max(display.width, options.tilePx ?? DEFAULT_TILE_PX);
    this.tickPx = options.tickPx ?? DEFAULT_TICK_PX;
    this.tickMs = options.tickMs ?? DEFAULT_TICK_MS;
    this.tileBuf = new Uint16Array(this.tilePx);
    this.canvasW = display.width;
    this.canvasH = display.height;
  }

  get rotation(): Rotation {
    return this.rot;
  }

  /** The canvas screens are laid out on, for the current mount orientation. */
  canvas(): { width: number; height: number } {
    return { width: this.canvasW, height: this.canvasH };
  }

  current(): DisplayList | null {
    return this.list;
  }

  stats(): RenderStats {
    let px = 0;
    for (const r of this.pending) px += area(r);
    return { ...this.stat, pendingPx: px };
  }

  /** Pixels not yet drawn. */
  busy(): boolean {
    return this.pending.length > 0;
  }

  /** A tile failed lately and drawing waits out the back-off. */
  backingOff(): boolean {
    return this.clock.monoMs() < this.retryAt;
  }

  setRotation(rotation: Rotation): void {
    if (rotation === this.rot) return;
    this.rot = rotation;
    const c = canvasSize(this.display.width, this.display.height, rotation);
    this.canvasW = c.width;
    this.canvasH = c.height;
    this.list = null;
    this.invalidateAll();
  }

  /** Sets the budget per tick (TFTHZ changes the tick rate, not this). */
  setBudget(tickPx: number, tickMs: number): void {
    this.tickPx = Math.max(this.tilePx, tickPx);
    this.tickMs = Math.max(1, tickMs);
  }

  /** Makes list the screen's content; only what changed is drawn again. */
  show(list: DisplayList): void {
    const old = this.list;
    this.list = list;
    if (list.width !== this.canvasW || list.height !== this.canvasH) throw new Error(`display list is ${list.width}x${list.height}, canvas ${this.canvasW}x${this.canvasH}`);
    if (!old || old.bg !== list.bg || old.width !== list.width || old.height !== list.height) {
      this.invalidateAll();
      return;
    }
    const byKey = new Map<number, Item[]>();
    for (const item of old.items) {
      const k = itemKey(item);
      const same = byKey.get(k);
      if (same) same.push(item);
      else byKey.set(k, [item]);
    }
    const matched = new Set<Item>();
    for (const item of list.items) {
      const candidates = byKey.get(itemKey(item));
      const hit = candidates?.find((o) => !matched.has(o) && sameItem(o, item));
      if (hit) matched.add(hit);
      else this.invalidateCanvas(item);
    }
    for (const item of old.items) if (!matched.has(item)) this.invalidateCanvas(item);
  }

  invalidateAll(): void {
    this.pending = [{ x: 0, y: 0, w: this.display.width, h: this.display.height }];
  }

  /** Marks a canvas rectangle for drawing again. */
  invalidateCanvas(r: Rect): void {
    const x = Math.max(0, r.x);
    const y = Math.max(0, r.y);
    const w = Math.min(this.canvasW, r.x + r.w) - x;
    const h = Math.min(this.canvasH, r.y + r.h) - y;
    if (w <= 0 || h <= 0) return;
    this.addPending(canvasToDisplay({ x, y, w, h }, this.display.width, this.display.height, this.rot));
  }

  private addPending(r: Rect): void {
    let next = r;
    for (let i = 0; i < this.pending.length; ) {
      const p = this.pending[i]!;
      const u = union(p, next);
      if (touching(p, next) && area(u) <= (area(p) + area(next)) * 1.5 + 2048) {
        this.pending.splice(i, 1);
        next = u;
        i = 0;
      } else i++;
    }
    this.pending.push(next);
    if (this.pending.length > MAX_PENDING) this.pending = [this.pending.reduce(union)];
  }

  /** Test builds (TFTBREAK): the next n tiles fail as a panel that stopped answering would. */
  injectFaults(n: number): void {
    this.faults += n;
  }

  /** Draws pending tiles within the tick's budget. Returns the pixels drawn. */
  tick(): number {
    const now = this.clock.monoMs();
    if (now < this.retryAt) return 0;
    return this.drawPending(this.tickPx, now + this.tickMs);
  }

  /** Draws everything pending now (console, tests); false when a tile failed. */
  flush(): boolean {
    this.retryAt = 0;
    this.drawPending(Infinity, Infinity);
    return this.pending.length === 0;
  }

  private drawPending(budgetPx: number, deadline: number): number {
    if (!this.list || !this.pending.length) return 0;
    let spent = 0;
    if (this.frameStart === null) {
      this.frameStart = this.clock.monoMs();
      this.framePx = 0;
    }
    while (this.pending.length && spent < budgetPx) {
      const r = this.pending[0]!;
      const rows = Math.max(1, Math.min(r.h, Math.floor(this.tilePx / r.w)));
      const tile = { x: r.x, y: r.y, w: r.w, h: rows };
      try {
        this.sendTile(tile);
      } catch (e) {
        this.failed(e);
        return spent;
      }
      this.backoffMs = 0;
      spent += tile.w * tile.h;
      this.framePx += tile.w * tile.h;
      r.y += rows;
      r.h -= rows;
      if (r.h <= 0) this.pending.shift();
      if (this.clock.monoMs() >= deadline) break;
    }
    if (!this.pending.length) {
      this.stat.frames++;
      this.stat.lastFrameMs = this.clock.monoMs() - (this.frameStart ?? 0);
      this.stat.lastFramePx = this.framePx;
      this.frameStart = null;
    }
    return spent;
  }

  private failed(e: unknown): void {
    this.stat.errors++;
    this.stat.lastError = e instanceof Error ? e.message : String(e);
    this.stat.lastErrorAt = this.clock.monoMs();
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs ? this.backoffMs * 2 : 50);
    this.retryAt = this.clock.monoMs() + this.backoffMs;
  }

  /** Renders one display rectangle of the current list and sends it to the panel. */
  private sendTile(tile: Rect): void {
    const px = this.renderDisplayRect(tile, false);
    if (this.faults > 0) {
      this.faults--;
      throw new Error('panel did not answer (TFTBREAK)');
    }
    this.display.begin(tile.x, tile.y, tile.w, tile.h);
    this.display.send(px);
    this.display.end();
    this.stat.tiles++;
    this.stat.pixels += px.length;
    if (px.length > this.stat.largestTile) this.stat.largestTile = px.length;
  }

  /**
   * The pixels of one display rectangle (at most tilePx) of the current list,
   * in display orientation; valid until the next call. redact: for exports.
   */
  renderDisplayRect(tile: Rect, redact: boolean, list: DisplayList | null = this.list): Uint16Array {
    if (!list) throw new Error('nothing to draw');
    const n = tile.w * tile.h;
    if (n > this.tilePx) throw new RangeError(`tile of ${n} px is over ${this.tilePx}`);
    if (list.width !== this.canvasW || list.height !== this.canvasH) throw new Error('the display list is for another orientation');
    const c = displayToCanvas(tile, this.display.width, this.display.height, this.rot);
    drawTile(list, c.x, c.y, c.w, c.h, this.tileBuf, redact);
    if (this.rot === 0) return this.view(this.tileBuf, n, 0);
    if (this.rot === 180) return this.view(this.tileBuf, n, 0).reverse();
    const turn = (this.turnBuf ??= new Uint16Array(this.tilePx));
    orientTile(this.tileBuf, c.w, c.h, this.rot, turn);
    return this.view(turn, n, 1);
  }

  private view(buf: Uint16Array, n: number, which: 0 | 1): Uint16Array {
    const key = n * 2 + which;
    let v = this.views.get(key);
    if (!v) {
      if (this.views.size >= 32) this.views.clear();
      this.views.set(key, (v = buf.subarray(0, n)));
    }
    return v;
  }

  /**
   * Walks the whole current frame in display row order, one band of full
   * rows at a time (what the panel holds, top to bottom): for checksums
   * and PNG exports. Each band is valid only during the callback.
   */
  eachBand(redact: boolean, visit: (pixels: Uint16Array, y: number, rows: number) => void, list: DisplayList | null = this.list): void {
    for (let y = 0; y < this.display.height; y += this.bandRows()) {
      const h = Math.min(this.bandRows(), this.display.height - y);
      visit(this.renderDisplayRect({ x: 0, y, w: this.display.width, h }, redact, list), y, h);
    }
  }

  /** Rows in one full-width band of the display. */
  bandRows(): number {
    return Math.max(1, Math.floor(this.tilePx / this.display.width));
  }

  /**
   * TFTFILL?: fills the whole panel with one colour, tile by tile straight
   * to the HAL, and says how long it took; the screen is redrawn afterwards.
   */
  fillTest(color: number): { ms: number; tiles: number } {
    const { width, height } = this.display;
    const rows = this.bandRows();
    this.tileBuf.fill(color);
    const t0 = this.clock.monoMs();
    let tiles = 0;
    for (let y = 0; y < height; y += rows) {
      const h = Math.min(rows, height - y);
      this.display.begin(0, y, width, h);
      this.display.send(this.tileBuf.subarray(0, width * h));
      this.display.end();
      tiles++;
    }
    const ms = this.clock.monoMs() - t0;
    this.invalidateAll();
    return { ms, tiles };
  }
}
