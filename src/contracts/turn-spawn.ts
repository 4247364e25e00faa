// What a sub-agent spawn asks for: the one shape of a session_ops spawn item
// (src/contracts/turn.ts's SessionOp extends it), the session.spawn tool's
// arguments and a POST /api/sessions spawn (src/agents/).

export interface SpawnSpec {
  task: string;
  /** Requested provider, lowercase ('' = by priority). */
  provider: string;
  /** Requested model ('' = the provider's default; 'deep_research' upgrades provider A's). */
  model: string;
  skill: string;
  name: string;
  project: string;
  attach: string[];
}
