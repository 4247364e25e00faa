// Refusals are written as clauses ("the name is too long") so they can be
// joined into other text; the answers people read start them with a capital
// and end them with a full stop.

/** The clause as a sentence: its first letter capitalised, a full stop added. */
export function sentence(clause: string): string {
  return `${clause.charAt(0).toUpperCase()}${clause.slice(1)}.`;
}

/** A refusal that changed nothing, said so. */
export function unchanged(clause: string): string {
  return `${sentence(clause)} Nothing was changed.`;
}
