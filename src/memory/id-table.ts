// Memory ids (64-bit content hashes, as two 32-bit halves) to rows: an
// open-addressing table with linear probing in one Int32Array, so 6000 ids
// cost 64 KB instead of a Map's entries and strings. Deletion shifts the
// following entries back (no tombstones), so lookups stay short however many
// memories come and go.

export class IdTable {
  /** row + 1 per slot (0: empty). */
  private slots: Int32Array;
  private used = 0;

  constructor(
    /** The halves of row r's id (the index's columns). */
    private readonly hi: () => Uint32Array,
    private readonly lo: () => Uint32Array,
    capacity = 64,
  ) {
    this.slots = new Int32Array(IdTable.sizeFor(capacity));
  }

  private static sizeFor(rows: number): number {
    let n = 64;
    while (n < rows * 2) n *= 2;
    return n;
  }

  private home(hi: number, lo: number): number {
    let h = Math.imul(hi ^ Math.imul(lo, 0x9e3779b1), 0x85ebca6b);
    h ^= h >>> 15;
    return h & (this.slots.length - 1);
  }

  /** The row holding this id, or -1. */
  find(hi: number, lo: number): number {
    const mask = this.slots.length - 1;
    const H = this.hi();
    const L = this.lo();
    for (let s = this.home(hi, lo); ; s = (s + 1) & mask) {
      const e = this.slots[s]!;
      if (e === 0) return -1;
      if (H[e - 1] === hi && L[e - 1] === lo) return e - 1;
    }
  }

  /** Adds row (its id already in the columns). */
  insert(row: number): void {
    if ((this.used + 1) * 2 > this.slots.length) this.rehash((this.used + 1) * 2);
    this.place(row);
    this.used++;
  }

  private place(row: number): void {
    const mask = this.slots.length - 1;
    let s = this.home(this.hi()[row]!, this.lo()[row]!);
    while (this.slots[s] !== 0) s = (s + 1) & mask;
    this.slots[s] = row + 1;
  }

  private slotOf(row: number): number {
    const mask = this.slots.length - 1;
    for (let s = this.home(this.hi()[row]!, this.lo()[row]!); ; s = (s + 1) & mask) {
      const e = this.slots[s]!;
      if (e === 0) return -1;
      if (e === row + 1) return s;
    }
  }

  /** Removes row's entry, moving later entries of its run back so no probe chain breaks. */
  remove(row: number): void {
    const mask = this.slots.length - 1;
    let hole = this.slotOf(row);
    if (hole < 0) return;
    this.slots[hole] = 0;
    this.used--;
    for (let s = (hole + 1) & mask; this.slots[s] !== 0; s = (s + 1) & mask) {
      const e = this.slots[s]! - 1;
      const home = this.home(this.hi()[e]!, this.lo()[e]!);
      // the entry may fill the hole when its home is not strictly between the hole and its slot
      const between = hole <= s ? home > hole && home <= s : home > hole || home <= s;
      if (!between) {
        this.slots[hole] = e + 1;
        this.slots[s] = 0;
        hole = s;
      }
    }
  }

  /** The entry of row `from` now names row `to` (the id moved with its row). */
  moved(from: number, to: number): void {
    const s = this.slotOf(from);
    if (s >= 0) this.slots[s] = to + 1;
  }

  clear(): void {
    this.slots.fill(0);
    this.used = 0;
  }

  private rehash(rows: number): void {
    const old = this.slots;
    this.slots = new Int32Array(IdTable.sizeFor(rows));
    for (let i = 0; i < old.length; i++) if (old[i]) this.place(old[i]! - 1);
  }

  bytes(): number {
    return this.slots.byteLength;
  }
}
