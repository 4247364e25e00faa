// The status line (console STATUS and the Status echo event) and the state
// snapshot (GET /api/state): each subsystem contributes its own fields, so
// neither registry knows any one subsystem.


import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const WHITESPACE_RUNS = /\s+/;

export type StatusField = () => string | number | boolean | null;
export type StateSection = () => Record<string, unknown>;

export class StatusRegistry {
  private fields: Array<[string, StatusField]> = [];
  private sections: StateSection[] = [];
  private order: readonly string[] = [];
  private lead: readonly StateSection[] = [];

  /** One key=value item of the status line. */
  field(key: string, value: StatusField): void {
    if (this.fields.some(([k]) => k === key)) throw new Error(`status field ${key} registered twice`);
    this.fields.push([key, value]);
  }

  /** Fields merged into the state snapshot (later sections may not reuse keys). */
  section(section: StateSection): void {
    this.sections.push(section);
  }

  /**
   * The layout, whoever registers what and whenever: the line's keys first, in this order (the rest after, as
   * registered), and the lead sections first in the snapshot (the device's identity).
   */
  layout(keys: readonly string[], lead: readonly StateSection[] = []): void {
    this.order = keys;
    this.lead = lead;
  }

  line(): string {
    const laid = this.order.flatMap((key) => this.fields.filter(([k]) => k === key));
    return [...laid, ...this.fields.filter(([k]) => !this.order.includes(k))]
      .map(([k, f]) => {
        const v = f();
        return `${k}=${v === null ? '-' : typeof v === 'boolean' ? (v ? 1 : 0) : replaceEvery(String(v), WHITESPACE_RUNS, '_')}`;
      })
      .join(' ');
  }

  snapshot(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const s of [...this.lead, ...this.sections.filter((x) => !this.lead.includes(x))]) {
      for (const [k, v] of Object.entries(s())) {
        if (k in out) throw new Error(`state key ${k} contributed twice`);
        out[k] = v;
      }
    }
    return out;
  }
}
