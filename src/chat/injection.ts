// The prompt-injection screen for fetched content: a local, deterministic
// check for the signs of text written to steer an assistant rather than to
// inform a reader (override phrases, chat-template and role markers, calls
// to tools, requests to hide things from the person or to send secrets
// away). Each sign has a weight; two points flag the content. It is a
// screen, not a proof: clean content is still only data to the model.
// Content beyond the scan limit is not screened (the caller marks it
// untrusted: the gate fails open).

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const SIGNS: ReadonlyArray<readonly [string, number, RegExp]> = [
  ['override', 2, /\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|all|any|your|system)\b[^.\n]{0,30}\b(?:instructions?|prompts?|rules|directions|guidelines)\b/i],
  ['new-instructions', 2, /\b(?:new|updated|real|actual|hidden)\s+(?:system\s+)?(?:instructions?|prompt|directives?)\s*:/i],
  ['template-token', 2, /<\|(?:im_start|im_end|system|endoftext)\|>|\[\/?INST\]|<<SYS>>|\[SYSTEM\]/i],
  ['role-line', 1, /(?:^|\n)\s*#*\s*(?:system|assistant|developer)\s*(?:prompt)?\s*:/i],
  ['tool-call', 1, /\b(?:call|use|invoke|run|execute)\s+(?:the\s+)?(?:\w+[_.]\w+\s+)?(?:tool|function)\b|\b(?:orch_turn|device_control|memory_write|reply_telegram|session_spawn|files_send|tenant_set_role)\b/i],
  ['secrecy', 1, /\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|show)\b[^.\n]{0,30}\b(?:user|owner|human|person)\b/i],
  ['exfiltration', 2, /\b(?:send|forward|post|upload|email|leak)\b[^.\n]{0,40}\b(?:api[ _-]?keys?|tokens?|passwords?|secrets?|credentials?)\b/i],
  ['persona', 1, /\byou are now\b|\bfrom now on,? you\b|\bpretend (?:to be|you are)\b/i],
];

/** Characters scanned; longer content is not screened. */
export const SCAN_MAX = 256 * 1024;
const FLAG_AT = 2;

export type InjectionResult = { ok: true; flagged: boolean; score: number; signals: string[] } | { ok: false; error: string };

export function screenInjection(content: string): InjectionResult {
  if (content.length > SCAN_MAX) return { ok: false, error: `the content is longer than the ${SCAN_MAX}-character scan limit` };
  const signals: string[] = [];
  let score = 0;
  for (const [name, weight, re] of SIGNS) {
    if (re.test(content)) {
      signals.push(name);
      score += weight;
    }
  }
  return { ok: true, flagged: score >= FLAG_AT, score, signals };
}
